import type { ChatRequestMessage } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import type { ChatCall, HttpProviderAdapter, ProviderAdapter } from '../provider-adapter.js';
import { sealCredentials, type ProviderCredentials } from '../provider-credentials.js';
import { azureFoundryAdapter } from '../azure-foundry/azure-foundry.adapter.js';
import { azureOpenAIAdapter } from '../azure-openai/azure-openai.adapter.js';
import { customaiAdapter } from '../customai/customai.adapter.js';
import { deepseekAdapter } from '../deepseek/deepseek.adapter.js';
import { mistralAdapter } from '../mistral/mistral.adapter.js';
import { openaiAdapter } from '../openai/openai.adapter.js';
import { openrouterAdapter } from '../openrouter/openrouter.adapter.js';

const credentials = (extra: Partial<ProviderCredentials> = {}): ProviderCredentials =>
  sealCredentials({
    provider: 'openai',
    platform: 'standard',
    enable_1m_context: false,
    custom_headers: {},
    api_key: 'sk-test',
    ...extra,
  });

function http(adapter: ProviderAdapter): HttpProviderAdapter {
  if (adapter.transport !== 'http') throw new Error('http adapter expected');
  return adapter;
}

const history: ChatRequestMessage[] = [
  { role: 'summary', text: 'They asked about Paris.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in these?' },
      { type: 'inline_data', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'inline_data', mediaType: 'application/pdf', data: 'JVBERi0=', filename: 'a.pdf' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'thinking', signature: 'sig' },
      { type: 'text', text: 'Checking.' },
    ],
    toolCalls: [
      { id: 'toolu_01A', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'toolu_01B', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
    ],
  },
  { role: 'tool', toolCallId: 'toolu_01A', name: 'get_weather', content: [{ type: 'text', text: 'rainy' }] },
  {
    role: 'tool',
    toolCallId: 'toolu_01B',
    name: 'get_weather',
    content: [
      { type: 'text', text: 'map attached' },
      { type: 'inline_data', mediaType: 'image/jpeg', data: '/9j/' },
    ],
    isError: true,
  },
];

const call: ChatCall = {
  model: 'gpt-4o-mini',
  system: [{ text: 'You are terse.' }, { text: 'Answer in English.', cache: {} }],
  messages: history,
  tools: [
    {
      name: 'get_weather',
      description: 'Get weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  ],
  toolChoice: { type: 'tool', name: 'get_weather' },
  parallelToolCalls: true,
  responseFormat: { type: 'json_schema', name: 'weather', schema: { type: 'object' } },
  temperature: 0.2,
  maxOutputTokens: 256,
  reasoningEffort: 'low',
  stream: true,
};

describe('OpenAI-compatible request builder', () => {
  it('builds the OpenAI body: system, multimodal user, assistant calls without reasoning, tool results, settings', () => {
    const built = http(openaiAdapter).buildRequest(call, credentials({ organization_id: 'org-1' }));
    expect(built.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(built.headers).toMatchObject({ authorization: 'Bearer sk-test', 'openai-organization': 'org-1' });
    expect(built.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are terse.\n\nAnswer in English.' },
        { role: 'user', content: '[Summary of the earlier conversation]\nThey asked about Paris.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            {
              id: 'toolu_01A',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'toolu_01B',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_01A', content: 'rainy' },
        { role: 'tool', tool_call_id: 'toolu_01B', content: 'Error: map attached' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/' } }] },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Get weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: true,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'weather', schema: { type: 'object' }, strict: true },
      },
      temperature: 0.2,
      max_completion_tokens: 256,
      reasoning_effort: 'low',
    });
  });

  it('Azure OpenAI: deployment URL with api-version and api-key; the v1 API without', () => {
    const classic = http(azureOpenAIAdapter).buildRequest(
      call,
      credentials({ provider: 'azure_openai', base_url: 'https://res.openai.azure.com/openai' }),
    );
    expect(classic.url).toBe(
      'https://res.openai.azure.com/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21',
    );
    expect(classic.headers).toMatchObject({ 'api-key': 'sk-test' });
    expect(classic.headers).not.toHaveProperty('authorization');
    const bare = http(azureOpenAIAdapter).buildRequest(
      call,
      credentials({
        provider: 'azure_openai',
        base_url: 'https://res.openai.azure.com',
        api_version: '2025-04-01-preview',
      }),
    );
    expect(bare.url).toBe(
      'https://res.openai.azure.com/openai/deployments/gpt-4o-mini/chat/completions?api-version=2025-04-01-preview',
    );
    const v1 = http(azureOpenAIAdapter).buildRequest(
      call,
      credentials({ provider: 'azure_openai', base_url: 'https://res.openai.azure.com/openai/v1' }),
    );
    expect(v1.url).toBe('https://res.openai.azure.com/openai/v1/chat/completions');
  });

  it('Azure AI Foundry: models endpoint with its api-version, max_tokens, no reasoning_effort', () => {
    const built = http(azureFoundryAdapter).buildRequest(
      call,
      credentials({ provider: 'azure_foundry', base_url: 'https://res.services.ai.azure.com/models' }),
    );
    expect(built.url).toBe(
      'https://res.services.ai.azure.com/models/chat/completions?api-version=2024-05-01-preview',
    );
    expect(built.body).toMatchObject({ max_tokens: 256 });
    expect(built.body).not.toHaveProperty('reasoning_effort');
  });

  it('Mistral: 9-character tool-call ids, stable and consistent between call and result; no stream_options', () => {
    const body = http(mistralAdapter).buildRequest(call, credentials({ provider: 'mistral' })).body as {
      messages: Array<{ role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
      stream_options?: unknown;
    };
    const ids = body.messages.flatMap((message) => message.tool_calls?.map((toolCall) => toolCall.id) ?? []);
    const answers = body.messages.flatMap((message) => (message.tool_call_id ? [message.tool_call_id] : []));
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(answers).toEqual(ids);
    expect(new Set(ids).size).toBe(2);
    expect(body.stream_options).toBeUndefined();
    expect(http(mistralAdapter).buildRequest(call, credentials({ provider: 'mistral' })).body).toEqual(body);
  });

  it('DeepSeek: json_object with the schema in the system prompt', () => {
    const body = http(deepseekAdapter).buildRequest(call, credentials({ provider: 'deepseek' })).body as {
      messages: Array<{ role: string; content: unknown }>;
      response_format: unknown;
    };
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages[0]).toEqual({
      role: 'system',
      content:
        'You are terse.\n\nAnswer in English.\n\nAnswer with one JSON object only, valid against this JSON Schema:\n{"type":"object"}',
    });
  });

  it('OpenRouter: reasoning.effort and attribution headers', () => {
    const built = http(openrouterAdapter).buildRequest(call, credentials({ provider: 'openrouter' }));
    expect(built.body).toMatchObject({ reasoning: { effort: 'low' } });
    expect(built.headers).toMatchObject({ 'x-title': 'flowmesh' });
  });

  it('Custom AI: the resource base URL, no auth header without a key, and a base URL is required', () => {
    const built = http(customaiAdapter).buildRequest(
      call,
      credentials({ provider: 'customai', base_url: 'http://models.internal:8000/v1', api_key: undefined }),
    );
    expect(built.url).toBe('http://models.internal:8000/v1/chat/completions');
    expect(built.headers).not.toHaveProperty('authorization');
    expect(() => http(customaiAdapter).buildRequest(call, credentials({ provider: 'customai' }))).toThrow(
      /needs a base_url/,
    );
  });

  it('refuses an attachment by reference as a request we built wrong', () => {
    const withAttachment: ChatCall = {
      ...call,
      messages: [
        { role: 'user', content: [{ type: 'attachment', object: { key: 'a.png' }, mediaType: 'image/png' }] },
      ],
    };
    expect(() => http(openaiAdapter).buildRequest(withAttachment, credentials())).toThrow(/inline/);
  });
});
