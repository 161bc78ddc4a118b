import type { EmbedReply, EmbedRequest } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { CredentialsResolver } from '../credentials/credentials-resolver.js';
import { CHAT_CONFIG, type ChatConfig } from '../chat/chat.config.js';
import { retryDelayMs } from '../chat/retry.policy.js';
import { ProviderCallError } from '../providers/provider-call.error.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { ProviderRegistry } from '../providers/provider-registry.js';

/** `gateway.embed`: one embeddings call, retried like a chat on rate limits and outages. */
@Injectable()
export class EmbedService {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly executor: ProviderExecutor,
    private readonly resolver: CredentialsResolver,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
  ) {}

  async embed(request: EmbedRequest): Promise<EmbedReply> {
    const { provider } = request;
    const adapter = this.registry.get(provider.kind);
    const credentials = await this.resolver.resolve({
      actor: request.actor,
      workspace: request.workspace,
      resource: provider.resource,
      kind: provider.kind,
    });
    const call = {
      model: provider.model,
      input: request.input,
      ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
      ...(request.inputType !== undefined ? { inputType: request.inputType } : {}),
    };
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.executor.embed(adapter, call, credentials, AbortSignal.timeout(110_000));
        return {
          embeddings: result.embeddings,
          model: result.model,
          usage: { inputTokens: result.inputTokens },
        };
      } catch (error) {
        const delay =
          error instanceof ProviderCallError
            ? retryDelayMs(attempt, error.providerError, this.config.retry)
            : undefined;
        if (delay === undefined) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
