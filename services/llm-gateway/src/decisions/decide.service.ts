import type { DecideReply, DecideRequest } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { CHAT_CONFIG, type ChatConfig } from '../chat/chat.config.js';
import { withRetries } from '../chat/retry.policy.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { CallerProvider } from '../providers/caller-provider.js';

/**
 * `gateway.decide`: one call to a decision model (TypeSafe's Jev, Cloudflare's Clef), as the
 * caller, retried like a chat on rate limits and outages. A provider without decision models is
 * UNSUPPORTED before anything is sent.
 */
@Injectable()
export class DecideService {
  constructor(
    private readonly providers: CallerProvider,
    private readonly executor: ProviderExecutor,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
  ) {}

  async decide(request: DecideRequest): Promise<DecideReply> {
    const { provider } = request;
    const { adapter, credentials } = await this.providers.of(request);
    const call = { model: provider.model, state: request.state, questions: request.questions };
    return withRetries(this.config.retry, async () => {
      const result = await this.executor.decide(adapter, call, credentials, AbortSignal.timeout(110_000));
      return {
        answers: result.answers,
        model: result.model,
        usage: { inputTokens: result.inputTokens, outputTokens: result.outputTokens },
      };
    });
  }
}
