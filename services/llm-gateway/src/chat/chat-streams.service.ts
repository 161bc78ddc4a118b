import {
  chatCancelSignalSubject,
  MeshError,
  CHAT_KEEPALIVE_MS,
  tokenStreamSubject,
  type ChatEvent,
  type ChatStreamEnvelope,
  type ProviderError,
} from '@flowmesh/contracts';
import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Subscription } from '@nats-io/nats-core';
import { MediaUrlResolver, natsMediaParam } from '../media/media-url.resolver.js';
import { canonicalChatRequest } from '../recordings/canonical-request.js';
import { RecordingsService } from '../recordings/recordings.service.js';
import { ChatRunner, type ChatRun } from './chat-runner.service.js';

interface RunningChat {
  readonly controller: AbortController;
  readonly cancelSignal: Subscription;
  readonly done: Promise<void>;
}

const SHUTDOWN = 'shutdown';
/** How long a stopping instance lets running chats finish before it ends them. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * The chats this instance is streaming: each publishes its events on its token stream subject
 * with gap-free sequence numbers, and listens on its own cancel subject so a cancel reaches it
 * whichever replica answered `gateway.chat.cancel`.
 */
@Injectable()
export class ChatStreams implements BeforeApplicationShutdown {
  private readonly running = new Map<string, RunningChat>();
  private readonly log = new Logger('ChatStreams');

  constructor(
    @InjectMeshConnection() private readonly conn: MeshConnection,
    private readonly runner: ChatRunner,
    private readonly media: MediaUrlResolver,
    private readonly recordings: RecordingsService,
  ) {}

  /** Starts streaming `run` on `streamId`; returns once the cancel listener is in place. */
  async start(streamId: string, run: ChatRun): Promise<void> {
    if (this.running.has(streamId)) {
      throw new MeshError('CONFLICT', `a chat is already streaming on ${streamId}`, { streamId });
    }
    const controller = new AbortController();
    const cancelSignal = this.conn.nc.subscribe(this.conn.space.subject(chatCancelSignalSubject(streamId)), {
      callback: () => controller.abort(),
    });
    await this.conn.nc.flush();
    const done = this.pump(streamId, run, controller.signal).finally(() => {
      cancelSignal.unsubscribe();
      this.running.delete(streamId);
    });
    this.running.set(streamId, { controller, cancelSignal, done });
  }

  /** Cancels a chat wherever it runs; true when it ran here. */
  cancel(streamId: string): { accepted: boolean } {
    const local = this.running.get(streamId);
    if (local) local.controller.abort();
    else this.conn.nc.publish(this.conn.space.subject(chatCancelSignalSubject(streamId)));
    return { accepted: true };
  }

  get size(): number {
    return this.running.size;
  }

  async beforeApplicationShutdown(): Promise<void> {
    const all = [...this.running.values()];
    const grace = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
    await Promise.race([Promise.all(all.map((chat) => chat.done)), grace]);
    for (const chat of this.running.values()) chat.controller.abort(SHUTDOWN);
    await Promise.all([...this.running.values()].map((chat) => chat.done));
  }

  private async pump(streamId: string, run: ChatRun, signal: AbortSignal): Promise<void> {
    const subject = this.conn.space.subject(tokenStreamSubject(streamId));
    let seq = 0;
    let keepalive: NodeJS.Timeout | undefined;
    // Silence while the model thinks is filled with keepalives: a subscriber that hears nothing at
    // all knows this instance died, and asks again elsewhere.
    const armKeepalive = () => {
      clearTimeout(keepalive);
      keepalive = setTimeout(() => publish({ type: 'keepalive' }), CHAT_KEEPALIVE_MS);
      keepalive.unref();
    };
    const publish = (event: ChatEvent): void => {
      const envelope: ChatStreamEnvelope = { streamId, seq: seq++, event };
      this.conn.nc.publish(subject, JSON.stringify(envelope));
      armKeepalive();
    };
    armKeepalive();
    try {
      const ready = await this.withMedia(run, signal);
      if ('error' in ready) {
        publish({ type: 'error', error: ready.error });
        return;
      }
      for await (const event of this.events(ready.run, signal)) {
        if (event.type === 'error' && event.error.class === 'cancelled' && signal.reason === SHUTDOWN) {
          publish({
            type: 'error',
            error: {
              ...event.error,
              class: 'provider_outage',
              message: 'the llm-gateway instance stopped',
              interrupted: true,
            },
          });
        } else publish(event);
      }
    } catch (error) {
      // The runner ends every chat with a final event; reaching here is our bug, said once, without detail.
      this.log.error(`chat ${streamId} failed: ${error instanceof Error ? error.message : String(error)}`);
      publish({
        type: 'error',
        error: { class: 'bad_request_internal', message: 'the llm-gateway failed while streaming' },
      });
    } finally {
      clearTimeout(keepalive);
    }
  }

  /** The runner's events, or with a recording, recorded or replayed (keyed by the request, its files inlined). */
  private events(run: ChatRun, signal: AbortSignal): AsyncIterable<ChatEvent> {
    if (!run.recording) return this.runner.run(run, signal);
    const request = canonicalChatRequest(run.provider, run.fallbacks, run.parameters);
    return this.recordings.chat(run.workspace, run.recording, request, () => this.runner.run(run, signal));
  }

  /**
   * The run with its images and PDFs by URL fetched and inlined, or the final error: a URL that
   * gave nothing usable is the caller's `bad_request_user` naming the part, before any provider
   * is called; a cancel while fetching ends the chat as `cancelled`.
   */
  private async withMedia(
    run: ChatRun,
    signal: AbortSignal,
  ): Promise<{ run: ChatRun } | { error: ProviderError }> {
    if (!MediaUrlResolver.hasUrlParts(run.parameters)) return { run };
    try {
      return {
        run: {
          ...run,
          parameters: await this.media.resolve(run.parameters, natsMediaParam, run.workspace, signal),
        },
      };
    } catch (error) {
      if (signal.aborted) {
        return signal.reason === SHUTDOWN
          ? { error: { class: 'provider_outage', message: 'the llm-gateway instance stopped' } }
          : { error: { class: 'cancelled', message: 'the chat was cancelled' } };
      }
      if (error instanceof MeshError && error.code === 'VALIDATION_FAILED')
        return { error: { class: 'bad_request_user', message: error.message } };
      throw error;
    }
  }
}
