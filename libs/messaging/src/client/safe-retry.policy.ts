import { MeshError } from '@flowmesh/contracts';
import { FLOWMESH_METRICS, getMeter } from '@flowmesh/telemetry';
import type { Counter } from '@opentelemetry/api';

/** How long a request safe to repeat is sent again after no reply, by default: a restart's length. */
export const DEFAULT_RETRY_FOR_MS = 30_000;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;

/** Where an outage is said: a Nest `Logger` fits. */
export interface RetryLog {
  warn(message: string): unknown;
  log(message: string): unknown;
}

/**
 * The pause before attempt `attempt + 1`: exponential from 100 ms to 2 s, with half of it random
 * ("equal jitter"), so the callers of a service that is back do not all ask again at once.
 */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Whether a failure means no reply came (no responder, or none in time), as opposed to an answer. */
const NO_REPLY = new WeakSet<MeshError>();

export function markNoReply(error: MeshError): MeshError {
  NO_REPLY.add(error);
  return error;
}

export function isNoReply(error: unknown): boolean {
  return error instanceof MeshError && NO_REPLY.has(error);
}

interface Outage {
  readonly since: number;
  retried: number;
}

/**
 * The retries of one client: counted in `flowmesh.request.retries`, and said in the log once per
 * outage of a service (when its first request goes without a reply, and when it answers again),
 * never once per request.
 */
export class SafeRetryPolicy {
  private readonly outages = new Map<string, Outage>();
  private retries: Counter | undefined;

  constructor(
    readonly retryForMs: number,
    readonly log: RetryLog,
  ) {}

  /** `subject` is the contract's (no deployment prefix); its first token names the service. */
  retrying(subject: string, error: MeshError): void {
    const service = subject.split('.')[0];
    let outage = this.outages.get(service);
    if (!outage) {
      outage = { since: Date.now(), retried: 0 };
      this.outages.set(service, outage);
      this.log.warn(
        `${service} does not answer (${error.code}: ${error.message}); requests safe to repeat are sent again for up to ${Math.round(this.retryForMs / 1000)} s`,
      );
    }
    outage.retried++;
    this.counter().add(1, { subject, code: error.code });
  }

  private counter(): Counter {
    this.retries ??= getMeter('flowmesh.messaging').createCounter(FLOWMESH_METRICS.requestRetries.name, {
      unit: FLOWMESH_METRICS.requestRetries.unit,
      description: 'Requests safe to repeat sent again after no reply (no responder, or none in time)',
    });
    return this.retries;
  }

  /** A reply came on `subject`: an outage of its service, if there was one, is over. */
  answered(subject: string): void {
    // The first reply puts the counter on /metrics at 0: a rate reads 0, not nothing, before any retry.
    if (this.retries === undefined) this.counter().add(0);
    if (this.outages.size === 0) return;
    const service = subject.split('.')[0];
    const outage = this.outages.get(service);
    if (!outage) return;
    this.outages.delete(service);
    this.log.log(
      `${service} answers again after ${((Date.now() - outage.since) / 1000).toFixed(1)} s; ${outage.retried} requests were sent again meanwhile`,
    );
  }
}

/** Waits `ms`, or rejects at once with `abandoned()` when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal | undefined, abandoned: () => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abandoned());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abandoned());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
