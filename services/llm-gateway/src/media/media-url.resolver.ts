import {
  MeshError,
  URL_PART_MEDIA_TYPES,
  type ChatParameters,
  type ChatRequestMessage,
  type RequestUserPart,
  type UrlPart,
} from '@flowmesh/contracts';
import {
  checkedUrl,
  createOutboundDispatcher,
  createOutboundFetch,
  findOutboundRefusal,
  OutboundPolicy,
  type AllowedCidr,
} from '@flowmesh/outbound';
import type { Agent } from 'undici';
import { MediaCache } from './media-cache.js';
import { ByteBudget, MediaFetcher, MediaFetchFailure, type FetchedMedia } from './media-fetcher.js';
import type { MediaConfig } from './media.config.js';

/** Names a URL part for the caller: `messages[0].content[1].image_url.url` in OpenAI's body. */
export type MediaParamOf = (messageIndex: number, partIndex: number) => string;

/** The field of a URL part in the normalized request (the NATS chat API). */
export const natsMediaParam: MediaParamOf = (message, part) => `messages[${message}].content[${part}].url`;

/** Fetches running at once for one request. */
const PARALLEL_FETCHES = 8;

const IMAGE_TYPES = URL_PART_MEDIA_TYPES.filter((type) => type.startsWith('image/'));

/**
 * Turns a request's `url` parts into `inline_data` parts before any adapter sees the request:
 * each URL fetched once per request (or reused from the workspace's earlier requests:
 * `media-cache.ts`), several at a time, through the SSRF guard. A URL that
 * cannot be used fails the whole request with VALIDATION_FAILED naming the part's field and
 * the reason: the caller's error, never the provider's. Nothing about a file's content is logged.
 */
export class MediaUrlResolver {
  private readonly policy: OutboundPolicy;
  private readonly fetcher: MediaFetcher;
  private readonly dispatcher: Agent;

  constructor(
    private readonly config: MediaConfig,
    allowCidrs: readonly AllowedCidr[],
  ) {
    this.policy = new OutboundPolicy(allowCidrs);
    const dispatcher = (this.dispatcher = createOutboundDispatcher(this.policy, {
      connections: 16,
      keepAliveTimeout: 10_000,
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
    }));
    this.fetcher = new MediaFetcher({
      fetch: createOutboundFetch({ policy: this.policy, dispatcher, maxRedirects: 5 }),
      maxBytes: config.maxBytes,
      timeoutMs: config.timeoutMs,
      ...(config.cacheBytes > 0 ? { cache: new MediaCache(config.cacheBytes, config.cacheTtlMs) } : {}),
    });
  }

  /** Nest calls this at shutdown: open connections to media hosts are closed. */
  async onModuleDestroy(): Promise<void> {
    await this.dispatcher.destroy();
  }

  /** Whether any user or tool message holds a URL part (cheap: the hot path asks first). */
  static hasUrlParts(parameters: ChatParameters): boolean {
    return parameters.messages.some((message) => partsOf(message).some((part) => part.type === 'url'));
  }

  /**
   * What can be refused without a request: a URL the guard refuses by its text (scheme, an IP
   * literal outside the allow-list, a metadata host name). Names are judged when fetched.
   */
  check(parameters: ChatParameters, paramOf: MediaParamOf): void {
    parameters.messages.forEach((message, messageIndex) =>
      partsOf(message).forEach((part, partIndex) => {
        if (part.type !== 'url') return;
        try {
          checkedUrl(this.policy, part.url);
        } catch (error) {
          const refusal = findOutboundRefusal(error);
          throw failed(
            paramOf(messageIndex, partIndex),
            refusal?.reason === 'invalid_url' || refusal?.reason === 'scheme'
              ? 'must be an http: or https: URL'
              : `refused: "${refusal?.host ?? '(invalid URL)'}" is not an address the gateway may fetch from (FLOWMESH_OUTBOUND_ALLOW_CIDRS)`,
          );
        }
      }),
    );
  }

  /**
   * The parameters with every URL part fetched and inlined (the same object when there is none).
   * Rejects with VALIDATION_FAILED naming the first part that failed; the other fetches of the
   * request are stopped then. Aborting `signal` stops them all and rejects with its reason.
   */
  async resolve(
    parameters: ChatParameters,
    paramOf: MediaParamOf,
    workspace: string,
    signal?: AbortSignal,
  ): Promise<ChatParameters> {
    if (!MediaUrlResolver.hasUrlParts(parameters)) return parameters;
    const stop = new AbortController();
    const stopped = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    const budget = new ByteBudget(this.config.maxRequestBytes, this.config.maxRequestBytes);
    const fetches = new Map<string, Promise<FetchedMedia>>();
    const limit = concurrency(PARALLEL_FETCHES);

    const inlined = new Map<string, RequestUserPart>();
    const pending: Array<Promise<void>> = [];
    parameters.messages.forEach((message, messageIndex) =>
      partsOf(message).forEach((part, partIndex) => {
        if (part.type !== 'url') return;
        const accepted = acceptedTypes(part);
        const key = `${accepted.join(',')} ${part.url}`;
        let fetched = fetches.get(key);
        if (!fetched) {
          fetched = limit(() => this.fetcher.fetch(part.url, accepted, budget, stopped, workspace));
          fetches.set(key, fetched);
        }
        pending.push(
          fetched.then(
            (media) => {
              inlined.set(`${messageIndex}/${partIndex}`, {
                type: 'inline_data',
                mediaType: media.mediaType,
                data: media.data.toString('base64'),
                ...(part.filename ? { filename: part.filename } : {}),
              });
            },
            (error: unknown) => {
              stop.abort();
              if (error instanceof MediaFetchFailure)
                throw failed(paramOf(messageIndex, partIndex), error.problem);
              throw error;
            },
          ),
        );
      }),
    );
    try {
      await Promise.all(pending);
    } catch (error) {
      // The first failure in time wins; a caller's abort is passed on as it came.
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
    const messages = parameters.messages.map((message, messageIndex): ChatRequestMessage => {
      if (message.role !== 'user' && message.role !== 'tool') return message;
      if (!message.content.some((part) => part.type === 'url')) return message;
      const content = message.content.map(
        (part, partIndex) => inlined.get(`${messageIndex}/${partIndex}`) ?? part,
      );
      return { ...message, content };
    });
    return { ...parameters, messages };
  }
}

function partsOf(message: ChatRequestMessage): readonly RequestUserPart[] {
  return message.role === 'user' || message.role === 'tool' ? message.content : [];
}

function acceptedTypes(part: UrlPart): readonly string[] {
  if (part.mediaType === 'image/*') return IMAGE_TYPES;
  return part.mediaType ? [part.mediaType] : URL_PART_MEDIA_TYPES;
}

function failed(param: string, problem: string): MeshError {
  return new MeshError('VALIDATION_FAILED', `${param}: ${problem}`, { param });
}

/** Runs at most `n` of the given tasks at once, in the order they were asked for. */
function concurrency(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
