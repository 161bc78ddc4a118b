import { providerResourceLabel, type EmbedReply, type EmbedRequest } from '@flowmesh/contracts';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { LlmCallRecorder } from '../audit/llm-call.recorder.js';
import { CHAT_CONFIG, type ChatConfig } from '../chat/chat.config.js';
import { serverOf } from '../chat/chat-runner.service.js';
import { withRetries } from '../chat/retry.policy.js';
import { KeyOwnership, withCredentialsFault } from '../credentials/key-ownership.js';
import { toHttpError } from '../http/openai-error.mapper.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { CallerProvider } from '../providers/caller-provider.js';

const UNKNOWN_IDENTITY = { username: '(unknown)', kind: 'user' as const };

/**
 * `gateway.embed`: one embeddings call, retried like a chat on rate limits and outages, audited
 * and traced like one (one row and span). A failure says whose fault it is (`details.fault`),
 * as a chat's `error` event does: the gateway knows whose key it used.
 */
@Injectable()
export class EmbedService {
  constructor(
    private readonly providers: CallerProvider,
    private readonly executor: ProviderExecutor,
    private readonly keys: KeyOwnership,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
    @Optional() private readonly recorder?: LlmCallRecorder,
  ) {}

  async embed(request: EmbedRequest): Promise<EmbedReply> {
    const { provider } = request;
    const { adapter, credentials, identity } = await this.providers.of(request).catch((error: unknown) => {
      throw withCredentialsFault(error);
    });
    const call = {
      model: provider.model,
      input: request.input,
      ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
      ...(request.inputType !== undefined ? { inputType: request.inputType } : {}),
    };
    const audit = this.recorder?.begin({
      operation: 'embeddings',
      providerName: adapter.telemetryName(credentials),
      model: provider.model,
      stream: false,
      workspace: request.workspace,
      resource: providerResourceLabel(provider.resource),
      ...serverOf(credentials.base_url),
      source: 'nats',
      kind: adapter.kind,
      identity: identity ?? UNKNOWN_IDENTITY,
    });
    try {
      const result = await withRetries(this.config.retry, () =>
        this.executor.embed(adapter, call, credentials, AbortSignal.timeout(110_000)),
      );
      audit?.succeed({
        usage: {
          inputTokens: result.inputTokens,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
        responseModel: result.model,
        httpStatus: 200,
      });
      return {
        embeddings: result.embeddings,
        model: result.model,
        usage: { inputTokens: result.inputTokens },
      };
    } catch (caught) {
      const error = this.keys.attributeCaught(caught, provider.resource);
      const failure = toHttpError(error);
      audit?.fail({ errorClass: failure.errorClass, fault: failure.fault, httpStatus: failure.status });
      throw error;
    }
  }
}
