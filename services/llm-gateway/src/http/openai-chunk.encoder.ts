import type { ChatEvent, ChatUsage, FinishReason, ProviderError } from '@flowmesh/contracts';
import { openAIErrorBody } from './openai-error.mapper.js';

const FINISH: Record<FinishReason, string> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  context_window_exceeded: 'length',
  other: 'stop',
};

export function openAIFinishReason(reason: FinishReason): string {
  return FINISH[reason];
}

export function openAIUsage(usage: ChatUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

/**
 * Normalized chat events -> OpenAI `chat.completion.chunk` SSE frames, as the official SDKs
 * parse them: role on the first delta, tool calls with `index`/`id`/`name` on their first
 * fragment only, `finish_reason` on its own chunk, the usage chunk (`choices: []`) only when the
 * caller asked for it, then `[DONE]`. A failure after the stream began is a `data: {"error":...}`
 * frame, which the SDKs raise as an APIError. Frames are built as strings around a prefix made
 * once per stream, so a text delta costs one `JSON.stringify` of its text.
 */
export class OpenAIChunkEncoder {
  private readonly prefix: string;
  private readonly suffix = ',"logprobs":null,"finish_reason":null}]}\n\n';
  private roleSent = false;
  private usage?: ChatUsage;
  /** Argument text already sent per tool call, to complete calls a provider sent whole. */
  private readonly sentArguments = new Map<number, number>();

  constructor(
    id: string,
    model: string,
    private readonly includeUsage: boolean,
    created = Math.floor(Date.now() / 1000),
  ) {
    this.prefix = `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)}`;
  }

  /** The frames for one event ('' when it adds nothing to the wire). */
  encode(event: ChatEvent): string {
    switch (event.type) {
      case 'text_delta':
        return event.text ? this.delta(`"content":${JSON.stringify(event.text)}`) : '';
      case 'reasoning_delta':
        return event.text ? this.delta(`"reasoning_content":${JSON.stringify(event.text)}`) : '';
      case 'tool_call_started':
        this.sentArguments.set(event.index, 0);
        return this.delta(
          `"tool_calls":[{"index":${event.index},"id":${JSON.stringify(event.id)},"type":"function","function":{"name":${JSON.stringify(event.name)},"arguments":""}}]`,
        );
      case 'tool_call_delta':
        this.sentArguments.set(
          event.index,
          (this.sentArguments.get(event.index) ?? 0) + event.arguments.length,
        );
        return event.arguments ? this.toolArguments(event.index, event.arguments) : '';
      case 'tool_call_finished': {
        const sent = this.sentArguments.get(event.index) ?? 0;
        const rest = event.arguments.slice(sent);
        this.sentArguments.set(event.index, event.arguments.length);
        return rest ? this.toolArguments(event.index, rest) : '';
      }
      case 'usage':
        this.usage = event.usage;
        return '';
      case 'finish':
        return `${this.prefix},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"${FINISH[event.reason]}"}]}\n\n`;
      case 'message': {
        const usage = event.usage ?? this.usage;
        const usageFrame =
          this.includeUsage && usage
            ? `${this.prefix},"choices":[],"usage":${JSON.stringify(openAIUsage(usage))}}\n\n`
            : '';
        return `${usageFrame}data: [DONE]\n\n`;
      }
      case 'error':
        return this.error(event.error);
      case 'started':
      case 'keepalive':
        return '';
    }
  }

  error(error: ProviderError): string {
    return `data: ${JSON.stringify(openAIErrorBody(error))}\n\n`;
  }

  private toolArguments(index: number, text: string): string {
    return this.delta(`"tool_calls":[{"index":${index},"function":{"arguments":${JSON.stringify(text)}}}]`);
  }

  private delta(fields: string): string {
    if (!this.roleSent) {
      this.roleSent = true;
      return `${this.prefix},"choices":[{"index":0,"delta":{"role":"assistant",${fields}}${this.suffix}`;
    }
    return `${this.prefix},"choices":[{"index":0,"delta":{${fields}}${this.suffix}`;
  }
}
