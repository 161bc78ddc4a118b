import { randomUUID } from 'node:crypto';
import {
  CHAT_LOST_AFTER_MS,
  ChatStreamEnvelopeSchema,
  gatewayContract,
  isFinalChatEvent,
  tokenStreamSubject,
  type ChatEvent,
  type ChatFinalEvent,
  type ChatRequestInput,
} from '@flowmesh/contracts';
import { MeshClient, type MeshConnection } from '@flowmesh/messaging';
import type { Subscription } from '@nats-io/nats-core';

export interface GatewayChatOptions {
  /**
   * Ends the stream with an `interrupted` error when nothing, not even a keepalive, arrives for
   * this long (default `CHAT_LOST_AFTER_MS`): the gateway instance died. Asking again is right.
   */
  idleTimeoutMs?: number;
  /** How long `abort()` waits for the gateway's confirmation before ending locally (default 5 s). */
  abortTimeoutMs?: number;
  /** Aborting this signal aborts the chat. */
  signal?: AbortSignal;
}

/** A running chat: its events in order, ending with `message` or `error`. */
export interface GatewayChatStream extends AsyncIterable<ChatEvent> {
  readonly streamId: string;
  /** The final event, whether or not anyone iterates. */
  readonly result: Promise<ChatFinalEvent>;
  /** Cancels the chat; the gateway aborts the upstream call and the stream ends with `cancelled`. */
  abort(): Promise<void>;
}

const DEFAULT_IDLE_TIMEOUT_MS = CHAT_LOST_AFTER_MS;
const DEFAULT_ABORT_TIMEOUT_MS = 5_000;

/**
 * Starts a chat on the llm-gateway and streams its events: subscribes to the chat's token stream
 * first, so no event is missed, then asks `gateway.chat.start`. Throws the `MeshError` of a
 * refused start (a resource the caller may not read, a malformed request). A gap in the events'
 * sequence, or silence longer than `idleTimeoutMs` (no keepalive either), ends the stream with an
 * `interrupted` `provider_outage` error.
 */
export async function gatewayChat(
  conn: MeshConnection,
  request: ChatRequestInput,
  options: GatewayChatOptions = {},
): Promise<GatewayChatStream> {
  const streamId = randomUUID();
  const client = new MeshClient(conn);
  const queue = new EventQueue();
  let expectedSeq = 0;
  let idle: NodeJS.Timeout | undefined;
  let resolveResult!: (event: ChatFinalEvent) => void;
  const result = new Promise<ChatFinalEvent>((resolve) => (resolveResult = resolve));

  const finish = (event: ChatFinalEvent): void => {
    if (queue.closed) return;
    clearTimeout(idle);
    subscription.unsubscribe();
    options.signal?.removeEventListener('abort', onSignal);
    queue.push(event);
    queue.close();
    resolveResult(event);
  };
  // The stream broke, or went silent: the mesh lost the call, not the provider.
  const fail = (message: string): void =>
    finish({
      type: 'error',
      error: { class: 'provider_outage', message, fault: 'internal', interrupted: true },
    });
  const armIdle = (): void => {
    clearTimeout(idle);
    const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    idle = setTimeout(
      () =>
        fail(`the llm-gateway went silent on chat stream ${streamId} for ${idleMs} ms (its instance died?)`),
      idleMs,
    );
    idle.unref();
  };

  const subscription: Subscription = conn.nc.subscribe(conn.space.subject(tokenStreamSubject(streamId)), {
    callback: (error, message) => {
      if (queue.closed) return;
      if (error) return fail(`the chat stream subscription failed: ${error.message}`);
      let parsed;
      try {
        parsed = ChatStreamEnvelopeSchema.safeParse(message.json());
      } catch {
        return fail('the chat stream carried a message that is not JSON');
      }
      if (!parsed.success) return fail('the chat stream carried a message that is not a chat event');
      const { seq, event } = parsed.data;
      if (seq !== expectedSeq)
        return fail(`the chat stream lost events (expected #${expectedSeq}, got #${seq})`);
      expectedSeq++;
      armIdle();
      if (event.type === 'keepalive') return;
      if (isFinalChatEvent(event)) finish(event);
      else queue.push(event);
    },
  });

  let aborting: Promise<void> | undefined;
  const abort = (): Promise<void> => {
    aborting ??= (async () => {
      if (queue.closed) return;
      const local = setTimeout(
        () => finish({ type: 'error', error: { class: 'cancelled', message: 'the chat was cancelled' } }),
        options.abortTimeoutMs ?? DEFAULT_ABORT_TIMEOUT_MS,
      );
      try {
        await client.request(gatewayContract.cancelChat, { streamId });
        await result;
      } catch {
        finish({ type: 'error', error: { class: 'cancelled', message: 'the chat was cancelled' } });
      } finally {
        clearTimeout(local);
      }
    })();
    return aborting;
  };
  const onSignal = (): void => void abort();

  try {
    // The subscription must be on the server before the gateway publishes the first event.
    await conn.nc.flush();
    await client.request(gatewayContract.startChat, { ...request, streamId });
  } catch (error) {
    subscription.unsubscribe();
    queue.close();
    throw error;
  }
  armIdle();
  if (options.signal?.aborted) void abort();
  else options.signal?.addEventListener('abort', onSignal, { once: true });

  return {
    streamId,
    result,
    abort,
    [Symbol.asyncIterator]: () => queue.iterate(),
  };
}

/** Events waiting for the one consumer, in arrival order. */
class EventQueue {
  private readonly items: ChatEvent[] = [];
  private waiter: (() => void) | undefined;
  closed = false;

  push(event: ChatEvent): void {
    this.items.push(event);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  async *iterate(): AsyncGenerator<ChatEvent> {
    for (;;) {
      const next = this.items.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}
