import {
  MeshError,
  type Actor,
  type CallerIdentity,
  type ChatEvent,
  type ChatParameters,
  type ProviderError,
  type ProviderReference,
  type RecordingRef,
  providerResourceLabel,
} from '@flowmesh/contracts';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { LlmCallRecorder, type LlmCall, type LlmCallSource } from '../audit/llm-call.recorder.js';
import { BudgetGuard, type BudgetedCall, type Reservation } from '../budgets/budget-guard.service.js';
import { CredentialsResolver } from '../credentials/credentials-resolver.js';
import { credentialsFault, KeyOwnership } from '../credentials/key-ownership.js';
import { knownContextWindow } from '../models/context-window.table.js';
import { ProviderCallError } from '../providers/provider-call.error.js';
import type { ProviderCredentials } from '../providers/provider-credentials.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { ProviderRegistry } from '../providers/provider-registry.js';
import { prepareChatCall } from './chat-call.factory.js';
import { CHAT_CONFIG, type ChatConfig } from './chat.config.js';
import { ChatStreamAssembler } from './chat-stream.assembler.js';
import { fallsBack, retryDelayMs } from './retry.policy.js';
import { recordAddedLatency } from '../telemetry/gateway.metrics.js';

/** One logical chat: who asks, which providers in order, and the call. */
export interface ChatRun {
  readonly actor: Actor;
  readonly workspace: string;
  readonly provider: ProviderReference;
  readonly fallbacks?: readonly ProviderReference[];
  readonly parameters: ChatParameters;
  /** The model's window when the table does not know it; decides context-window fallbacks. */
  readonly contextWindow?: number;
  readonly conversationId?: string;
  /** Sent as `Idempotency-Key` on every try of this call (retries and fallbacks alike). */
  readonly idempotencyKey?: string;
  /** Credentials of `provider` when the caller resolved them already. */
  readonly credentials?: ProviderCredentials;
  /** For the audit row: which surface asked, and who. */
  readonly source: LlmCallSource;
  readonly identity?: Pick<CallerIdentity, 'username' | 'kind' | 'jobId'>;
  /** The run records its answers or replays them (`ChatStreams` does, around this runner). */
  readonly recording?: RecordingRef;
  /** The run and flow whose spend budgets the call counts toward, beside its workspace's and token's. */
  readonly budget?: BudgetedCall['budget'];
}

const UNKNOWN_IDENTITY = { username: '(unknown)', kind: 'user' as const };

/**
 * Runs a chat to its end as contract events: the first provider, its retries on rate limits and
 * outages (honouring retry-after, bounded), then each fallback in order. Nothing is retried once
 * an event of the answer went out: a failure after that ends the stream with `error`. Always
 * ends with exactly one final event (`message` or `error`); aborting `signal` aborts the
 * upstream request and ends with `cancelled`. One audit row and span per provider tried.
 */
@Injectable()
export class ChatRunner {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly executor: ProviderExecutor,
    private readonly resolver: CredentialsResolver,
    private readonly keys: KeyOwnership,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
    @Optional() private readonly recorder?: LlmCallRecorder,
    @Optional() private readonly budgets?: BudgetGuard,
  ) {}

  async *run(run: ChatRun, signal: AbortSignal): AsyncGenerator<ChatEvent> {
    const receivedAt = performance.now();
    const candidates = [run.provider, ...(run.fallbacks ?? [])];
    let lastError: ProviderError | undefined;
    let lastWindow: number | undefined;
    for (const [fallbackIndex, reference] of candidates.entries()) {
      const window =
        fallbackIndex === 0 && run.contextWindow ? run.contextWindow : knownContextWindow(reference.model);
      // A context overflow moves only to a model with a larger window.
      if (
        lastError?.class === 'context_window_exceeded' &&
        (window ?? 0) <= (lastWindow ?? Number.MAX_SAFE_INTEGER)
      )
        continue;
      lastWindow = window ?? lastWindow;
      const outcome = yield* this.runProvider(run, reference, fallbackIndex, signal, receivedAt);
      if (outcome === 'done') return;
      lastError = outcome;
      if (!fallsBack(outcome)) break;
    }
    yield {
      type: 'error',
      error: lastError ?? {
        class: 'provider_outage',
        message: 'no provider could answer',
        fault: 'internal',
      },
    };
  }

  /** 'done' once a final event went out; else the error that made this provider give up. */
  private async *runProvider(
    run: ChatRun,
    reference: ProviderReference,
    fallbackIndex: number,
    signal: AbortSignal,
    receivedAt: number,
  ): AsyncGenerator<ChatEvent, 'done' | ProviderError> {
    let credentials: ProviderCredentials;
    let prepared;
    try {
      credentials =
        fallbackIndex === 0 && run.credentials
          ? run.credentials
          : await this.resolver.resolve({
              actor: run.actor,
              workspace: run.workspace,
              resource: reference.resource,
              kind: reference.kind,
            });
      prepared = prepareChatCall(run.parameters, reference.model);
    } catch (error) {
      // A fallback we cannot use (unreadable, malformed) is skipped like an unavailable model.
      return {
        class: 'model_unavailable',
        message: describe(error),
        provider: reference.kind,
        model: reference.model,
        fault: credentialsFault(error),
      };
    }
    const adapter = this.registry.get(reference.kind);
    const { call, names } = prepared;
    const audit = this.begin(run, reference, credentials, adapter.telemetryName(credentials), call.stream);
    if (fallbackIndex === 0) recordAddedLatency(receivedAt, run.source);

    for (let attempt = 1; ; attempt++) {
      const assembler = new ChatStreamAssembler(names, reference.kind, reference.model);
      let started = false;
      let reservation: Reservation | undefined;
      try {
        // Each attempt is a model call: its spend is checked (and reserved) before it goes out.
        reservation = await this.budgets?.reserve({
          actor: run.actor,
          workspace: run.workspace,
          ...(run.budget ? { budget: run.budget } : {}),
          kind: reference.kind,
          model: reference.model,
          parameters: run.parameters,
        });
        for await (const piece of this.executor.chat(
          adapter,
          call,
          credentials,
          signal,
          run.idempotencyKey,
        )) {
          if (!started) {
            started = true;
            audit?.markFirstChunk();
            yield {
              type: 'started',
              provider: reference.kind,
              resource: providerResourceLabel(reference.resource),
              model: reference.model,
              fallbackIndex,
            };
          }
          yield* assembler.push(piece);
        }
        const closing = assembler.end();
        const final = closing.at(-1);
        await reservation?.settle(final?.type === 'message' ? final.usage : undefined);
        if (final?.type === 'message') {
          audit?.succeed({
            ...(final.usage ? { usage: final.usage } : {}),
            responseModel: final.model,
            ...(final.responseId ? { responseId: final.responseId } : {}),
            finishReason: final.finishReason,
          });
        }
        yield* closing;
        return 'done';
      } catch (caught) {
        await reservation?.settle();
        const error = this.keys.attribute(asProviderError(caught, reference, signal), reference.resource);
        if (started || error.class === 'cancelled') {
          audit?.fail({
            errorClass: error.class,
            fault: error.fault,
            ...(error.status ? { httpStatus: error.status } : {}),
            cancelled: error.class === 'cancelled',
          });
          yield { type: 'error', error };
          return 'done';
        }
        const delay = retryDelayMs(attempt, error, this.config.retry);
        if (delay === undefined) {
          audit?.fail({
            errorClass: error.class,
            fault: error.fault,
            ...(error.status ? { httpStatus: error.status } : {}),
          });
          return error;
        }
        if (!(await sleep(delay, signal))) {
          audit?.fail({ errorClass: 'cancelled', fault: 'user', cancelled: true });
          yield {
            type: 'error',
            error: {
              class: 'cancelled',
              message: 'the chat was cancelled',
              provider: reference.kind,
              fault: 'user',
            },
          };
          return 'done';
        }
      } finally {
        // The caller stopped reading mid-answer: the call's reservation is released all the same.
        void reservation?.settle();
      }
    }
  }

  private begin(
    run: ChatRun,
    reference: ProviderReference,
    credentials: ProviderCredentials,
    providerName: string,
    stream: boolean,
  ): LlmCall | undefined {
    if (!this.recorder) return undefined;
    const server = serverOf(credentials.base_url);
    const { parameters } = run;
    return this.recorder.begin({
      operation: 'chat',
      providerName,
      model: reference.model,
      stream,
      workspace: run.workspace,
      resource: providerResourceLabel(reference.resource),
      ...server,
      ...(parameters.maxOutputTokens !== undefined ? { maxTokens: parameters.maxOutputTokens } : {}),
      ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
      ...(parameters.topP !== undefined ? { topP: parameters.topP } : {}),
      ...(run.conversationId ? { conversationId: run.conversationId } : {}),
      source: run.source,
      kind: reference.kind,
      identity: run.identity ?? UNKNOWN_IDENTITY,
    });
  }
}

function asProviderError(error: unknown, reference: ProviderReference, signal: AbortSignal): ProviderError {
  if (error instanceof ProviderCallError) return error.providerError;
  // A provider resource that cannot be used as written (no base_url, a refused address) is the
  // user's configuration, said as the check said it.
  if (error instanceof MeshError && error.code === 'VALIDATION_FAILED') {
    return {
      class: 'bad_request_user',
      message: error.message,
      provider: reference.kind,
      model: reference.model,
    };
  }
  if (signal.aborted)
    return {
      class: 'cancelled',
      message: 'the chat was cancelled',
      provider: reference.kind,
      model: reference.model,
    };
  // Our own bug (a parser threw): never the user's fault, and never a stack trace on the wire.
  return {
    class: 'bad_request_internal',
    message: `the gateway failed to handle the ${reference.kind} answer`,
    provider: reference.kind,
    model: reference.model,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function serverOf(baseUrl: string | undefined): { serverAddress?: string; serverPort?: number } {
  if (!baseUrl) return {};
  try {
    const url = new URL(baseUrl);
    return { serverAddress: url.hostname, ...(url.port ? { serverPort: Number(url.port) } : {}) };
  } catch {
    return {};
  }
}

/** Resolves true after `ms`, false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
