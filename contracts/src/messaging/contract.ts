import type { z } from 'zod';

/**
 * A request a service answers over NATS request/reply. `subject` is relative to the
 * deployment prefix. Both sides validate: the caller its request before sending and the reply
 * on return, the handler the request before the handler runs.
 */
export interface RequestContract<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  readonly kind: 'request';
  readonly subject: string;
  readonly request: Req;
  readonly reply: Res;
  /** Default timeout for a caller that does not pass one. */
  readonly timeoutMs: number;
  /** Whether a caller may send it again when no reply came (see `RequestRetry`). */
  readonly retry: RequestRetry;
}

/**
 * `safe`: answering the request twice changes nothing (a read, an interpolation, an
 * authentication, signing a stateless token), so a caller that got no reply (no service answers,
 * or none in time) sends it again, with backoff, for a bounded time: a service restart is then a
 * pause, not a failure. `never` (the default): a command whose second run could repeat its effect
 * (create, update, delete, run, save); it fails at the first missing reply, as before. A command
 * joins `safe` only once it carries an idempotency key its handler honours.
 */
export type RequestRetry = 'safe' | 'never';

/** The options of a request that is safe to repeat: `defineRequest(subject, req, res, SAFE_TO_REPEAT)`. */
export const SAFE_TO_REPEAT = { retry: 'safe' } as const satisfies RequestDefinitionOptions;

export interface RequestDefinitionOptions {
  timeoutMs?: number;
  retry?: RequestRetry;
}

/** What a handler of `C` receives: the request as its schema parsed it (`@Payload() req: RequestOf<typeof c.get>`). */
export type RequestOf<C extends { readonly request: z.ZodType }> = z.output<C['request']>;

/** What a handler of `C` may answer: the reply before its schema parses it on the way out. */
export type ReplyOf<C extends { readonly reply: z.ZodType }> = z.input<C['reply']>;

/** A fact published on the events stream (`evt.<domain>.<event>`). */
export interface EventContract<Payload extends z.ZodType = z.ZodType> {
  readonly kind: 'event';
  readonly subject: string;
  readonly payload: Payload;
}

/** A unit of work published on the work-queue stream (`work.<tag>.<kind>`). */
export interface WorkContract<Payload extends z.ZodType = z.ZodType> {
  readonly kind: 'work';
  /** Work kind, the last subject token; the subject is `work.<tag>.<kind>`. */
  readonly workKind: string;
  readonly payload: Payload;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;

const TOKEN = /^[a-z0-9_-]+$/;

function assertSubject(subject: string, tokens: number): void {
  const parts = subject.split('.');
  if (parts.length < tokens || !parts.every((p) => TOKEN.test(p))) {
    throw new Error(`contract subject "${subject}" must be ${tokens}+ lowercase tokens separated by '.'`);
  }
}

export function defineRequest<Req extends z.ZodType, Res extends z.ZodType>(
  subject: string,
  request: Req,
  reply: Res,
  options: RequestDefinitionOptions = {},
): RequestContract<Req, Res> {
  assertSubject(subject, 2);
  return {
    kind: 'request',
    subject,
    request,
    reply,
    timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    retry: options.retry ?? 'never',
  };
}

export function defineEvent<Payload extends z.ZodType>(
  subject: string,
  payload: Payload,
): EventContract<Payload> {
  assertSubject(subject, 3);
  if (!subject.startsWith('evt.')) throw new Error(`event subject "${subject}" must start with "evt."`);
  return { kind: 'event', subject, payload };
}

export function defineWork<Payload extends z.ZodType>(
  workKind: string,
  payload: Payload,
): WorkContract<Payload> {
  if (!TOKEN.test(workKind)) throw new Error(`work kind "${workKind}" must be one lowercase token`);
  return { kind: 'work', workKind, payload };
}

/** Relative subject of work of `kind` for worker tag `tag`. Tags are one subject token. */
export function workSubject(tag: string, kind: string): string {
  if (!TOKEN.test(tag)) throw new Error(`worker tag "${tag}" must be one lowercase token ([a-z0-9_-])`);
  return `work.${tag}.${kind}`;
}

/** Relative subject of the ephemeral token stream of one job (core NATS, not persisted). */
export function tokenStreamSubject(jobId: string): string {
  return `stream.${jobId}`;
}

/** Relative subject where a dead letter from `stream`/`durable` is recorded. */
export function deadLetterSubject(stream: string, durable: string): string {
  return `dlq.${stream.toLowerCase()}.${durable.toLowerCase()}`;
}

/** Anything that can carry a request: implemented by libs/messaging's NATS client. */
export interface RequestTransport {
  request<Req extends z.ZodType, Res extends z.ZodType>(
    contract: RequestContract<Req, Res>,
    payload: z.input<Req>,
    options?: RequestCallOptions,
  ): Promise<z.output<Res>>;
}

/** How one request is sent: its own timeout, and a signal that stops waiting for the reply. */
export interface RequestCallOptions {
  /** How long one attempt waits for its reply (the contract's `timeoutMs` by default). */
  timeoutMs?: number;
  /**
   * How long a request that is `safe` to repeat keeps being sent again after no reply came,
   * counted from its first attempt (the client's default, 30 s, when unset; 0: never again).
   */
  retryForMs?: number;
  /** Aborted: the request rejects at once (`UNAVAILABLE`, "abandoned"); a late reply is dropped. */
  signal?: AbortSignal;
}

export type ServiceContract = Record<string, RequestContract>;

/** `registry.getResource(req)` for every request of a service contract. */
export type ContractClient<C extends ServiceContract> = {
  [K in keyof C]: (
    payload: z.input<C[K]['request']>,
    options?: RequestCallOptions,
  ) => Promise<z.output<C[K]['reply']>>;
};

export function createContractClient<C extends ServiceContract>(
  contract: C,
  transport: RequestTransport,
): ContractClient<C> {
  const client: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(contract)) {
    client[name] = (payload: unknown, options?: RequestCallOptions) =>
      transport.request(def, payload, options);
  }
  return client as ContractClient<C>;
}
