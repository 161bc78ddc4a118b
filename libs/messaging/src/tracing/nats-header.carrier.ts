import { headers as createHeaders, Match, type MsgHdrs } from '@nats-io/nats-core';
import type { TextMapGetter, TextMapSetter } from '@opentelemetry/api';

/**
 * A carrier that creates NATS headers only when the propagator writes something: without a
 * registered propagator nothing is injected and the message goes out with no header block.
 */
export interface OutgoingCarrier {
  headers: MsgHdrs | undefined;
}

export const outgoingSetter: TextMapSetter<OutgoingCarrier> = {
  set(carrier, key, value) {
    carrier.headers ??= createHeaders();
    carrier.headers.set(key, value);
  },
};

export const incomingGetter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (headers) => (headers ? headers.keys() : []),
  get(headers, key) {
    if (!headers) return undefined;
    // Propagators ask in lower case; a hop through another client may have canonicalised the key.
    const value = headers.get(key) || headers.get(key, Match.IgnoreCase);
    return value === '' ? undefined : value;
  },
};

/** Trace headers as a plain record, to store with an outbox row and restore on publish. */
export const recordSetter: TextMapSetter<Record<string, string>> = {
  set(carrier, key, value) {
    carrier[key] = value;
  },
};

export const recordGetter: TextMapGetter<Record<string, string>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};
