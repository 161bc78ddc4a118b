import {
  MeshError,
  tokenStreamSubject,
  type StartChatReply,
  type StartChatRequest,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { CallerProvider } from '../providers/caller-provider.js';
import { withCredentialsFault } from '../credentials/key-ownership.js';
import { MediaUrlResolver, natsMediaParam } from '../media/media-url.resolver.js';
import { ProviderRegistry } from '../providers/provider-registry.js';
import { RecordingsService } from '../recordings/recordings.service.js';
import { prepareChatCall } from './chat-call.factory.js';
import { ChatStreams } from './chat-streams.service.js';

/**
 * `gateway.chat.start`: everything that can be refused is refused in the reply (an unknown
 * provider kind, a malformed call, a URL part the SSRF guard refuses by its text, a resource the
 * caller may not read); then the chat streams in the background (URL parts fetched first) and
 * the reply names its subject.
 */
@Injectable()
export class StartChatService {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly callers: CallerProvider,
    private readonly streams: ChatStreams,
    private readonly media: MediaUrlResolver,
    private readonly recordings: RecordingsService,
  ) {}

  async start(request: StartChatRequest): Promise<StartChatReply> {
    const {
      streamId,
      actor,
      workspace,
      provider,
      fallbacks,
      contextWindow,
      conversationId,
      recording,
      budget,
      idempotencyKey,
      ...parameters
    } = request;
    const adapter = this.registry.get(provider.kind);
    if (parameters.webSearch && !adapter.webSearch)
      throw new MeshError(
        'VALIDATION_FAILED',
        `invalid chat request: webSearch ${provider.kind} has no web search of its own (anthropic, googleai and openai do)`,
        { issues: [{ path: 'webSearch', message: `${provider.kind} has no web search of its own` }] },
      );
    prepareChatCall(parameters, provider.model);
    // A URL the guard refuses by its text is refused here; the files are fetched once the chat runs.
    this.media.check(parameters, natsMediaParam);
    // A replay calls no provider: it needs no credentials, only a caller of the workspace.
    const resolved =
      recording?.mode === 'replay'
        ? await this.recordings.checkCaller(actor, workspace).then(() => undefined)
        : await this.callers.of({ actor, workspace, provider }).catch((error: unknown) => {
            throw withCredentialsFault(error);
          });
    await this.streams.start(streamId, {
      actor,
      workspace,
      provider,
      ...(fallbacks ? { fallbacks } : {}),
      parameters,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(conversationId !== undefined ? { conversationId } : {}),
      ...(budget ? { budget } : {}),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      ...(resolved ? { credentials: resolved.credentials } : {}),
      source: 'nats',
      ...(resolved?.identity ? { identity: resolved.identity } : {}),
      ...(recording ? { recording } : {}),
    });
    return { streamId, subject: tokenStreamSubject(streamId) };
  }
}
