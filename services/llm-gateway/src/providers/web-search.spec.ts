import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from './anthropic/anthropic.adapter.js';
import { buildAnthropicBody } from './anthropic/anthropic-request.builder.js';
import { normalizeAnthropicUsage } from './anthropic/anthropic-usage.js';
import { deepseekAdapter } from './deepseek/deepseek.adapter.js';
import { buildGeminiBody } from './googleai/gemini-request.builder.js';
import { parseGeminiResponse } from './googleai/gemini-response.parser.js';
import { googleAIAdapter } from './googleai/googleai.adapter.js';
import { openaiAdapter } from './openai/openai.adapter.js';
import { buildOpenAIChatBody } from './openai-compatible/openai-request.builder.js';
import { parseOpenAIChatCompletion } from './openai-compatible/openai-response.parser.js';
import type { ChatCall } from './provider-adapter.js';

const call: ChatCall = {
  model: 'm',
  stream: false,
  webSearch: true,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'News today?' }] }],
  tools: [{ name: 'add', parameters: { type: 'object' } }],
};

// `webSearch`: each provider's own search, beside the caller's tools; its usage counts searches.
describe('web search', () => {
  it('Anthropic: the web_search server tool after the function tools; usage counts its requests', () => {
    expect(buildAnthropicBody(call).tools).toEqual([
      { name: 'add', input_schema: { type: 'object' } },
      { type: 'web_search_20250305', name: 'web_search' },
    ]);
    expect(buildAnthropicBody({ ...call, tools: [] }).tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search' },
    ]);
    expect(buildAnthropicBody({ ...call, webSearch: false }).tools).toHaveLength(1);
    expect(
      normalizeAnthropicUsage({
        input_tokens: 10,
        output_tokens: 5,
        server_tool_use: { web_search_requests: 2 },
      }),
    ).toMatchObject({ inputTokens: 10, webSearches: 2 });
    expect(normalizeAnthropicUsage({ input_tokens: 10, output_tokens: 5 })).not.toHaveProperty('webSearches');
  });

  it('Gemini: Google Search grounding beside the function declarations; the queries it ran count', () => {
    expect(buildGeminiBody(call).tools).toEqual([
      { functionDeclarations: [{ name: 'add' }] },
      { googleSearch: {} },
    ]);
    const answer = parseGeminiResponse({
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'It rained.' }] },
          finishReason: 'STOP',
          groundingMetadata: { webSearchQueries: ['news today', 'weather today'] },
        },
      ],
      usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 3 },
    });
    expect(answer.usage).toMatchObject({ inputTokens: 8, outputTokens: 3, webSearches: 2 });
  });

  it('OpenAI: web_search_options for its search models; an answer citing pages counts one search', () => {
    const body = buildOpenAIChatBody(call, { kind: 'openai', webSearch: true } as never);
    expect(body.web_search_options).toEqual({});
    const cited = parseOpenAIChatCompletion(
      {
        choices: [
          {
            message: {
              role: 'assistant',
              content: 'It rained.',
              annotations: [{ type: 'url_citation', url_citation: { url: 'https://news.test/a' } }],
            },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 8, completion_tokens: 3 },
      },
      'OpenAI',
    );
    expect(cited.usage).toMatchObject({ webSearches: 1 });
  });

  it('only providers with a search of their own take it', () => {
    expect([anthropicAdapter, googleAIAdapter, openaiAdapter].map((adapter) => adapter.webSearch)).toEqual([
      true,
      true,
      true,
    ]);
    expect(deepseekAdapter.webSearch).toBeUndefined();
  });
});
