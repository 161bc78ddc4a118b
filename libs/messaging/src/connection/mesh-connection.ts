import { meshInboxPrefix, SubjectSpace } from '@flowmesh/contracts';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { ConnectionOutages, type OutageLog } from './connection-outages.js';
import { splitNatsUrl } from './nats-url-credentials.util.js';
import { redactUrl } from './redact-url.util.js';

export interface MeshConnectionOptions {
  /** One NATS URL, or several separated by commas. May carry credentials; they are never logged. */
  url: string;
  /**
   * Client name shown by the server's monitoring (`resource-registry`, `bench`, ...); it also
   * names the connection's reply inbox (`_INBOX.<prefix>.<name>`), which a NATS user's
   * permissions allow to that process alone.
   */
  name: string;
  /** Deployment-wide subject prefix (default `fm`); tests pass their own to isolate themselves. */
  prefix?: string;
  /** Where the loss of the connection and its return are said, once each per outage (default: nowhere). */
  outageLog?: OutageLog;
}

/** One NATS connection with its JetStream handles and the subject space it speaks in. */
export interface MeshConnection {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly space: SubjectSpace;
  /** Whether the server is reachable now, and what must run when it is back after an outage. */
  readonly outages: ConnectionOutages;
  /** Lets subscriptions finish what they hold, then closes. Safe to call more than once. */
  drain(): Promise<void>;
}

export async function connectMesh(options: MeshConnectionOptions): Promise<MeshConnection> {
  const space = new SubjectSpace(options.prefix);
  const { servers, user, pass } = splitNatsUrl(options.url);
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers,
      ...(user !== undefined ? { user } : {}),
      ...(pass !== undefined ? { pass } : {}),
      name: options.name,
      inboxPrefix: meshInboxPrefix(space.prefix, options.name),
      // Reconnect forever: a NATS restart must not take a service down with it.
      maxReconnectAttempts: -1,
      // The async stack traces cost an Error per request; callers get a MeshError anyway.
      noAsyncTraces: true,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot connect to NATS at ${servers.map(redactUrl).join(',')}: ${reason}`, {
      cause: error,
    });
  }
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc);
  } catch (error) {
    await nc.close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `NATS at ${servers.map(redactUrl).join(',')} has no JetStream (start it with -js): ${reason}`,
      {
        cause: error,
      },
    );
  }
  const js = jetstream(nc);
  const outages = new ConnectionOutages(nc, options.outageLog);

  let drained: Promise<void> | undefined;
  const drain = (): Promise<void> => {
    // A drain already under way (or a closed connection) makes nc.drain() throw: wait for the close instead.
    drained ??= nc.isClosed() ? Promise.resolve() : nc.drain().catch(async () => void (await nc.closed()));
    return drained;
  };

  return { nc, js, jsm, space, outages, drain };
}
