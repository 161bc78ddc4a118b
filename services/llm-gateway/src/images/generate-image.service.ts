import {
  ChatParametersSchema,
  imageCancelSignalSubject,
  MeshError,
  type GenerateImageReply,
  type GenerateImageRequest,
} from '@flowmesh/contracts';
import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { CHAT_CONFIG, type ChatConfig } from '../chat/chat.config.js';
import { withRetries } from '../chat/retry.policy.js';
import { KeyOwnership, withCredentialsFault } from '../credentials/key-ownership.js';
import { MediaUrlResolver } from '../media/media-url.resolver.js';
import { CallerProvider } from '../providers/caller-provider.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { ImageUpload } from './image-upload.js';

/** The image generated for one request at most (a 4K PNG is about 20 MB). */
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;
/** One provider call at most (image models take tens of seconds). */
const PROVIDER_TIMEOUT_MS = 240_000;

/**
 * `gateway.image.generate`: one image from a model, as the caller, retried like a chat on rate
 * limits and outages, then put where the caller's signed link says. A provider without image
 * models is refused before anything is fetched or sent. A request with a `cancelId` listens for
 * `gateway.image.cancel` while it works: cancelled, the provider call is aborted and nothing is
 * uploaded.
 */
@Injectable()
export class GenerateImageService {
  constructor(
    private readonly providers: CallerProvider,
    private readonly executor: ProviderExecutor,
    private readonly media: MediaUrlResolver,
    private readonly upload: ImageUpload,
    private readonly keys: KeyOwnership,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
    @InjectMeshConnection() private readonly conn: MeshConnection,
  ) {}

  async generate(request: GenerateImageRequest): Promise<GenerateImageReply> {
    if (!request.cancelId) return this.draw(request, new AbortController().signal);
    const cancelled = new AbortController();
    const listener = this.conn.nc.subscribe(this.cancelSubject(request.cancelId), {
      callback: () => cancelled.abort(),
    });
    try {
      return await this.draw(request, cancelled.signal);
    } finally {
      listener.unsubscribe();
    }
  }

  /** Stops the drawing named `cancelId` wherever it runs (every replica hears the signal). */
  cancel(cancelId: string): { accepted: boolean } {
    this.conn.nc.publish(this.cancelSubject(cancelId));
    return { accepted: true };
  }

  private cancelSubject(cancelId: string): string {
    return this.conn.space.subject(imageCancelSignalSubject(cancelId));
  }

  private async draw(request: GenerateImageRequest, cancelled: AbortSignal): Promise<GenerateImageReply> {
    const { provider } = request;
    const { adapter, credentials } = await this.providers.of(request).catch((error: unknown) => {
      throw withCredentialsFault(error);
    });
    if (adapter.transport !== 'http' || !adapter.images)
      throw new MeshError(
        'VALIDATION_FAILED',
        `provider.kind: ${provider.kind} generates no images through the gateway; use openai, googleai or openrouter with an image model`,
        { param: 'provider.kind' },
      );
    const images = await this.fetchImages(request);
    const call = {
      model: provider.model,
      prompt: request.prompt,
      images,
      ...(request.system ? { system: request.system } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
    const result = await withRetries(this.config.retry, () =>
      this.executor.generateImage(
        adapter,
        call,
        credentials,
        AbortSignal.any([cancelled, AbortSignal.timeout(PROVIDER_TIMEOUT_MS)]),
      ),
    ).catch((error: unknown) => {
      // Whose fault, as for a chat: the gateway knows whose key it used (`details.fault`).
      throw this.keys.attributeCaught(error, provider.resource);
    });
    const bytes = Buffer.from(result.data, 'base64');
    if (bytes.byteLength === 0 || bytes.byteLength > MAX_IMAGE_BYTES)
      throw new MeshError(
        'UNAVAILABLE',
        `${provider.kind} answered with an image of ${bytes.byteLength} bytes (at most ${MAX_IMAGE_BYTES})`,
      );
    if (cancelled.aborted) throw new MeshError('UNAVAILABLE', 'the image was cancelled; nothing was stored');
    await this.upload.put(request.upload.url, bytes, result.mediaType);
    return {
      mediaType: result.mediaType,
      bytes: bytes.byteLength,
      model: result.model,
      ...(result.text ? { text: result.text } : {}),
      usage: { inputTokens: result.inputTokens, outputTokens: result.outputTokens },
    };
  }

  /** The pictures to start from, fetched through the SSRF guard like a chat's `url` parts. */
  private async fetchImages(request: GenerateImageRequest) {
    if (!request.images?.length) return [];
    const parameters = ChatParametersSchema.parse({
      messages: [{ role: 'user', content: request.images }],
    });
    const paramOf = (_message: number, part: number) => `images[${part}].url`;
    this.media.check(parameters, paramOf);
    const resolved = await this.media.resolve(parameters, paramOf, request.workspace);
    const [message] = resolved.messages;
    const parts = message && message.role === 'user' && Array.isArray(message.content) ? message.content : [];
    return parts.flatMap((part) =>
      part.type === 'inline_data' ? [{ mediaType: part.mediaType, data: part.data }] : [],
    );
  }
}
