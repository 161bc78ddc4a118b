import {
  providerResourceLabel,
  type AiDecisionQuestions,
  type AiDecisionState,
  type CallerIdentity,
  type DecideReply,
  type DecideRequest,
} from '@flowmesh/contracts';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { LlmCallRecorder, type LlmCallSource } from '../audit/llm-call.recorder.js';
import { CHAT_CONFIG, type ChatConfig } from '../chat/chat.config.js';
import { serverOf } from '../chat/chat-runner.service.js';
import { KeyOwnership, withCredentialsFault } from '../credentials/key-ownership.js';
import { withRetries } from '../chat/retry.policy.js';
import { toHttpError } from '../http/openai-error.mapper.js';
import { CallerProvider } from '../providers/caller-provider.js';
import type { ProviderAdapter } from '../providers/provider-adapter.js';
import type { ProviderCredentials } from '../providers/provider-credentials.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { normalizeAnswers } from './decision-answers.normalizer.js';

/** One decision, its provider resolved: what `gateway.decide` and `POST /v1/decisions` both run. */
export interface ResolvedDecision {
  readonly adapter: ProviderAdapter;
  readonly credentials: ProviderCredentials;
  readonly identity?: CallerIdentity;
  readonly workspace: string;
  /** The resource as audit rows name it (a path, or `inline`). */
  readonly resource: string;
  readonly source: LlmCallSource;
  readonly model: string;
  readonly state: AiDecisionState;
  readonly questions: AiDecisionQuestions;
}

const UNKNOWN_IDENTITY = { username: '(unknown)', kind: 'user' as const };
const DECISION_TIMEOUT_MS = 110_000;

/**
 * A call to a decision model (TypeSafe's Jev, Cloudflare's Clef, OpenAI's Decisions API), as the
 * caller: retried like a chat on rate limits and outages, its answers normalized against the
 * questions, audited and traced like a chat call (one row and span per call). A provider without
 * decision models is refused before anything is sent.
 */
@Injectable()
export class DecideService {
  constructor(
    private readonly providers: CallerProvider,
    private readonly executor: ProviderExecutor,
    private readonly keys: KeyOwnership,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
    @Optional() private readonly recorder?: LlmCallRecorder,
  ) {}

  /** `gateway.decide`. */
  async decide(request: DecideRequest): Promise<DecideReply> {
    const resolved = await this.providers.of(request).catch((error: unknown) => {
      throw withCredentialsFault(error);
    });
    return this.run(
      {
        ...resolved,
        workspace: request.workspace,
        resource: providerResourceLabel(request.provider.resource),
        source: 'nats',
        model: request.provider.model,
        state: request.state,
        questions: request.questions,
      },
      AbortSignal.timeout(DECISION_TIMEOUT_MS),
    );
  }

  async run(decision: ResolvedDecision, signal: AbortSignal): Promise<DecideReply> {
    const { adapter, credentials, model, questions } = decision;
    const audit = this.recorder?.begin({
      operation: 'decide',
      providerName: adapter.telemetryName(credentials),
      model,
      stream: false,
      workspace: decision.workspace,
      resource: decision.resource,
      ...serverOf(credentials.base_url),
      source: decision.source,
      kind: adapter.kind,
      identity: decision.identity ?? UNKNOWN_IDENTITY,
      requestBody: { model, state: decision.state, questions },
    });
    try {
      // Retries cover the provider call; an answer that does not fit the questions is not retried.
      const result = await withRetries(this.config.retry, () =>
        this.executor.decide(adapter, { model, state: decision.state, questions }, credentials, signal),
      );
      const reply: DecideReply = {
        answers: normalizeAnswers(adapter.kind, questions, result.answers),
        model: result.model,
        usage: { inputTokens: result.inputTokens, outputTokens: result.outputTokens },
      };
      audit?.succeed({
        usage: { ...reply.usage, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
        responseModel: reply.model,
        httpStatus: 200,
        responseBody: reply,
      });
      return reply;
    } catch (caught) {
      // Whose fault, said once here for NATS and HTTP callers alike (the error's `details.fault`).
      const error = this.keys.attributeCaught(caught, decision.resource);
      const failure = toHttpError(error);
      audit?.fail({
        errorClass: failure.errorClass,
        fault: failure.fault,
        httpStatus: failure.status,
        cancelled: signal.aborted,
      });
      throw error;
    }
  }
}
