import { describe, expect, it } from 'vitest';
import { ChatStreamEnvelopeSchema, ChatUsageSchema } from '../ai/chat-event.schema.js';
import { ChatRequestSchema } from '../ai/chat-request.schema.js';
import { gatewayContract, StartChatRequestSchema } from './gateway.contract.js';

/** Golden samples of what travels on the gateway's subjects: a breaking change fails here first. */
const START = {
  streamId: 'b8f2c9d0-1a2b-4c3d-8e9f-001122334455',
  actor: { token: 'fmj_job_token' },
  workspace: 'main',
  provider: { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' },
  system: [{ text: 'You are terse.', cache: { ttl: '5m' } }],
  messages: [
    { role: 'summary', text: 'Earlier: the user asked about Paris.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this image?' },
        { type: 'inline_data', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
      cache: {},
    },
    {
      role: 'assistant',
      content: [{ type: 'reasoning', text: 'Look first.', signature: 'EqQB' }],
      toolCalls: [{ id: 'call_1', name: 'look', arguments: '{}', signature: 'CiQB' }],
    },
    { role: 'tool', toolCallId: 'call_1', name: 'look', content: [{ type: 'text', text: 'a cat' }] },
  ],
  tools: [{ name: 'look', description: 'Look closer', parameters: { type: 'object' } }],
  toolChoice: { type: 'tool', name: 'look' },
  responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' } },
  temperature: 0.2,
  maxOutputTokens: 512,
  reasoningEffort: 'low',
  stream: true,
  contextWindow: 64000,
  fallbacks: [{ kind: 'mistral', resource: 'f/ai/mistral', model: 'mistral-large-latest' }],
};

const EVENTS = [
  { type: 'started', provider: 'openai', resource: 'f/ai/openai', model: 'gpt-4o-mini', fallbackIndex: 0 },
  { type: 'reasoning_delta', text: 'Hm', signature: 'EqQB', part: 0 },
  { type: 'text_delta', text: 'A cat.' },
  { type: 'tool_call_started', index: 0, id: 'call_2', name: 'look' },
  { type: 'tool_call_delta', index: 0, id: 'call_2', arguments: '{}' },
  { type: 'tool_call_finished', index: 0, id: 'call_2', name: 'look', arguments: '{}' },
  {
    type: 'usage',
    usage: {
      inputTokens: 100,
      outputTokens: 20,
      cacheReadTokens: 64,
      cacheWriteTokens: 0,
      reasoningTokens: 5,
    },
  },
  { type: 'finish', reason: 'tool_calls', providerReason: 'tool_calls' },
  {
    type: 'message',
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: 'A cat.' }],
      toolCalls: [{ id: 'call_2', name: 'look', arguments: '{}' }],
    },
    finishReason: 'tool_calls',
    provider: 'openai',
    model: 'gpt-4o-mini-2024-07-18',
  },
  {
    type: 'error',
    error: {
      class: 'rate_limited',
      message: 'OpenAI answered 429',
      status: 429,
      retryAfterMs: 2000,
      provider: 'openai',
    },
  },
];

describe('gateway contract', () => {
  it('parses a full chat start, stripping $res: from provider references', () => {
    const parsed = StartChatRequestSchema.parse(START);
    expect(parsed.provider.resource).toBe('f/ai/openai');
    expect(gatewayContract.startChat.subject).toBe('gateway.chat.start');
  });

  it('refuses unknown keys, system messages in the history, and non-base64 inline data', () => {
    expect(ChatRequestSchema.safeParse({ ...START, streamId: undefined, extra: 1 }).success).toBe(false);
    const system = { ...START, messages: [{ role: 'system', content: 'x' }] };
    expect(StartChatRequestSchema.safeParse(system).success).toBe(false);
    const badData = {
      ...START,
      messages: [
        { role: 'user', content: [{ type: 'inline_data', mediaType: 'image/png', data: 'not base64!' }] },
      ],
    };
    expect(StartChatRequestSchema.safeParse(badData).success).toBe(false);
    expect(StartChatRequestSchema.safeParse({ ...START, streamId: 'a.b' }).success).toBe(false);
  });

  it('parses every event kind inside a stream envelope', () => {
    EVENTS.forEach((event, seq) => {
      expect(ChatStreamEnvelopeSchema.parse({ streamId: START.streamId, seq, event }).event).toEqual(
        event.type === 'usage' ? { ...event, usage: ChatUsageSchema.parse(event.usage) } : event,
      );
    });
  });
});
