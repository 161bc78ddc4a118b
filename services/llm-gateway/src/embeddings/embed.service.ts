import type { EmbedReply, EmbedRequest } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { CHAT_CONFIG, type ChatConfig } from '../chat/chat.config.js';
import { withRetries } from '../chat/retry.policy.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { CallerProvider } from '../providers/caller-provider.js';

/** `gateway.embed`: one embeddings call, retried like a chat on rate limits and outages. */
@Injectable()
export class EmbedService {
  constructor(
    private readonly providers: CallerProvider,
    private readonly executor: ProviderExecutor,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
  ) {}

  async embed(request: EmbedRequest): Promise<EmbedReply> {
    const { provider } = request;
    const { adapter, credentials } = await this.providers.of(request);
    const call = {
      model: provider.model,
      input: request.input,
      ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
      ...(request.inputType !== undefined ? { inputType: request.inputType } : {}),
    };
    return withRetries(this.config.retry, async () => {
      const result = await this.executor.embed(adapter, call, credentials, AbortSignal.timeout(110_000));
      return {
        embeddings: result.embeddings,
        model: result.model,
        usage: { inputTokens: result.inputTokens },
      };
    });
  }
}
