import { randomBytes } from 'node:crypto';
import { splitText } from '../recording-server.js';
import type { OpenAIFakeTurn, OpenAIFakeUsage } from './openai-fake.types.js';

type Json = Record<string, unknown>;

const DEFAULT_USAGE: OpenAIFakeUsage = { prompt_tokens: 10, completion_tokens: 5 };

export function fakeId(prefix: string): string {
  return `${prefix}${randomBytes(9).toString('base64url')}`;
}

/** OpenAI's usage object: totals, and the detail objects OpenAI always sends. */
export function renderUsage(usage: OpenAIFakeUsage): Json {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning_tokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
    ...(usage.prompt_cache_hit_tokens !== undefined
      ? {
          prompt_cache_hit_tokens: usage.prompt_cache_hit_tokens,
          prompt_cache_miss_tokens: usage.prompt_tokens - usage.prompt_cache_hit_tokens,
        }
      : {}),
  };
}

function finishReasonOf(turn: OpenAIFakeTurn): string {
  return turn.finishReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
}

function reportedModel(turn: OpenAIFakeTurn, requested: string): string {
  return turn.model ?? `${requested}-2024-07-18`;
}

function withCallIds(turn: OpenAIFakeTurn): Array<{ id: string; name: string; arguments: string }> {
  return (turn.toolCalls ?? []).map((call) => ({ ...call, id: call.id ?? fakeId('call_') }));
}

/** `url_citation` annotations over the whole text, one per cited page. */
function annotationsOf(turn: OpenAIFakeTurn): Json[] {
  const end = turn.text?.length ?? 0;
  return (turn.citations ?? []).map(({ url, title }) => ({
    type: 'url_citation',
    url_citation: { start_index: 0, end_index: end, url, title },
  }));
}

/** A `chat.completion` body. */
export function renderCompletion(turn: OpenAIFakeTurn, requested: string): Json {
  const calls = withCallIds(turn);
  const usage = turn.usage === undefined ? DEFAULT_USAGE : turn.usage;
  const message: Json = {
    role: 'assistant',
    content: turn.text ?? null,
    refusal: null,
    annotations: annotationsOf(turn),
  };
  if (turn.reasoning !== undefined) message[turn.reasoningField ?? 'reasoning_content'] = turn.reasoning;
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: fakeId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: reportedModel(turn, requested),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(turn) }],
    usage: usage === null ? null : renderUsage(usage),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

/**
 * The `chat.completion.chunk`s of a turn, in wire order: the role chunk, reasoning, text, each
 * tool call (id, type and name only in its first fragment; `index` is the call's position), the
 * finish chunk, and usage where the style puts it.
 */
export function renderChunks(turn: OpenAIFakeTurn, requested: string, includeUsage: boolean): Json[] {
  const id = fakeId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const model = reportedModel(turn, requested);
  const style = turn.usageStyle ?? 'usage_chunk';
  const usage = turn.usage === undefined ? DEFAULT_USAGE : turn.usage;
  const size = turn.deltaSize ?? 6;
  // With include_usage, OpenAI puts `"usage": null` on every chunk but the usage chunk.
  const nullUsage = includeUsage && style === 'usage_chunk' ? { usage: null } : {};
  const chunk = (delta: Json, finish: string | null = null, extra: Json = {}): Json => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...nullUsage,
    ...extra,
  });
  const chunks: Json[] = [];
  if (turn.azureFilterChunks) {
    chunks.push({
      id: '',
      object: '',
      created: 0,
      model: '',
      choices: [],
      prompt_filter_results: [
        { prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: 'safe' } } },
      ],
    });
  }
  chunks.push(chunk({ role: 'assistant', content: '', refusal: null }));
  if (turn.reasoning !== undefined) {
    for (const piece of splitText(turn.reasoning, size))
      chunks.push(chunk({ [turn.reasoningField ?? 'reasoning_content']: piece }));
  }
  if (turn.text !== undefined && turn.text !== '') {
    for (const piece of splitText(turn.text, size)) chunks.push(chunk({ content: piece }));
  }
  withCallIds(turn).forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of splitText(call.arguments, size)) {
      if (piece !== '') chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  if (turn.citations?.length) chunks.push(chunk({ annotations: annotationsOf(turn) }));
  const finish = finishReasonOf(turn);
  if (usage !== null && style === 'last_choice_chunk')
    chunks.push(chunk({}, finish, { usage: renderUsage(usage) }));
  else if (usage !== null && style === 'x_groq')
    chunks.push(chunk({}, finish, { x_groq: { id: 'req_fake', usage: renderUsage(usage) } }));
  else chunks.push(chunk({}, finish));
  if (usage !== null && style === 'usage_chunk' && includeUsage) {
    chunks.push({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_fake',
      choices: [],
      usage: renderUsage(usage),
    });
  }
  return chunks;
}

export function formatDataFrame(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export function openAIErrorBody(
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): Json {
  return { error: { message, type, param, code } };
}

/** A deterministic unit-ish vector for an input: same text, same vector. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector: number[] = [];
  for (let at = 0; at < dimensions; at++) {
    const code = text.charCodeAt(at % Math.max(1, text.length)) || 0;
    vector.push(Number((((code * (at + 1)) % 997) / 997).toFixed(6)));
  }
  return vector;
}

/**
 * A Responses API body (`POST /responses`) for a call with the `image_generation` tool: the
 * picture as an `image_generation_call` item, the text (if any) as a `message` item.
 */
export function renderImageResponse(turn: OpenAIFakeTurn, requested: string): Json {
  const usage = turn.usage ?? DEFAULT_USAGE;
  const output: Json[] = [];
  if (turn.image !== undefined)
    output.push({
      id: fakeId('ig_'),
      type: 'image_generation_call',
      status: 'completed',
      background: 'opaque',
      output_format: 'png',
      quality: 'medium',
      size: '1024x1024',
      revised_prompt: 'as asked',
      result: turn.image,
    });
  if (turn.text !== undefined)
    output.push({
      id: fakeId('msg_'),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    });
  return {
    id: fakeId('resp_'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: reportedModel(turn, requested),
    output,
    usage: {
      input_tokens: usage.prompt_tokens,
      input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
      output_tokens: usage.completion_tokens,
      output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
    },
  };
}
