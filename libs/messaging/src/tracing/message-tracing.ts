import type { MsgHdrs } from '@nats-io/nats-core';
import {
  context,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { MeshError } from '@flowmesh/contracts';
import {
  ATTR_ERROR_TYPE,
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_SYSTEM,
  MESSAGING_OPERATION_TYPE,
  MESSAGING_SYSTEM,
} from '@flowmesh/telemetry';
import {
  incomingGetter,
  outgoingSetter,
  recordGetter,
  recordSetter,
  type OutgoingCarrier,
} from './nats-header.carrier.js';

/**
 * The one place messaging touches spans: a PRODUCER span around every publish and request with
 * its context injected into the NATS headers, a CONSUMER span around every handler with the
 * parent extracted from them. Business code never sees a span. With no tracer provider and no
 * propagator registered the API hands out no-op spans and writes no headers.
 */
const TRACER_NAME = '@flowmesh/messaging';
// Looked up per span rather than once: a tracer taken before telemetry is registered (or after
// `trace.disable()` in tests) would stay a no-op. Providers cache tracers by name.
const tracer = () => trace.getTracer(TRACER_NAME);
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * False while no tracer provider and no propagator are registered: then a span would be a no-op
 * and nothing would be injected, so the hot path skips the span work altogether. Checked per
 * message because telemetry may be registered after this module loads.
 */
export function tracingActive(): boolean {
  const provider = trace.getTracerProvider();
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  return delegate !== NOOP_TRACER_PROVIDER || propagation.fields().length > 0;
}

export interface SendSpanOptions {
  /** `request`, `publish`, `enqueue`, `dead-letter`, `relay`. */
  operation: string;
  attributes?: Attributes;
  /** Headers the message already carries; trace headers are added to them. */
  headers?: MsgHdrs;
  /** Parent other than the active context (the outbox relay restores the writer's). */
  parent?: Context;
}

export async function traceSend<T>(
  subject: string,
  options: SendSpanOptions,
  send: (headers: MsgHdrs | undefined) => Promise<T>,
): Promise<T> {
  if (!tracingActive()) return send(options.headers);
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(
    `send ${subject}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: messagingAttributes(subject, MESSAGING_OPERATION_TYPE.send, options),
    },
    parent,
  );
  const carrier: OutgoingCarrier = { headers: options.headers };
  propagation.inject(trace.setSpan(parent, span), carrier, outgoingSetter);
  try {
    return await send(carrier.headers);
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

export interface ProcessSpanOptions {
  /** `request`, `event`, `work`. */
  operation: string;
  /** Built only when tracing is active. */
  attributes?: () => Attributes;
}

/** Runs `handle` in a CONSUMER span whose parent is the trace context the message carried. */
export function traceProcess<T>(
  subject: string,
  headers: MsgHdrs | undefined,
  options: ProcessSpanOptions,
  handle: () => Promise<T>,
): Promise<T> {
  if (!tracingActive()) return handle();
  const parent = headers ? propagation.extract(ROOT_CONTEXT, headers, incomingGetter) : ROOT_CONTEXT;
  const span = tracer().startSpan(
    `process ${subject}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: messagingAttributes(subject, MESSAGING_OPERATION_TYPE.process, {
        operation: options.operation,
        attributes: options.attributes?.(),
      }),
    },
    parent,
  );
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await handle();
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks the active consumer span failed without throwing (a handler error answered as an envelope). */
export function markActiveSpanFailed(error: unknown): void {
  const span = trace.getActiveSpan();
  if (span) recordFailure(span, error);
}

/** The active trace context as headers, for a message published later (outbox rows). */
export function captureTraceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier, recordSetter);
  return carrier;
}

/** The context stored by `captureTraceHeaders`. */
export function restoreTraceContext(headers: Record<string, string>): Context {
  return propagation.extract(ROOT_CONTEXT, headers, recordGetter);
}

function messagingAttributes(
  subject: string,
  operationType: string,
  options: { operation: string; attributes?: Attributes },
): Attributes {
  return {
    [ATTR_MESSAGING_SYSTEM]: MESSAGING_SYSTEM,
    [ATTR_MESSAGING_DESTINATION_NAME]: subject,
    [ATTR_MESSAGING_OPERATION_TYPE]: operationType,
    [ATTR_MESSAGING_OPERATION_NAME]: options.operation,
    ...options.attributes,
  };
}

function recordFailure(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const type = error instanceof MeshError ? error.code : error instanceof Error ? error.name : 'Error';
  span.setAttribute(ATTR_ERROR_TYPE, type);
  // The message of a MeshError is meant for callers; other errors may hold internals, so only their type.
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof MeshError ? error.message : type });
}
