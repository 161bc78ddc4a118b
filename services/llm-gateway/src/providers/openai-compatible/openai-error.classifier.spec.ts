import { describe, expect, it } from 'vitest';
import { classifyOpenAIError } from './openai-error.classifier.js';

const json = (body: unknown) => JSON.stringify(body);
const error = (message: string, code: string | null = null, type = 'invalid_request_error') =>
  json({ error: { message, type, param: null, code } });

describe('OpenAI-compatible error classifier', () => {
  const cases: Array<[string, number, string, Record<string, string>, string]> = [
    [
      'OpenAI context code',
      400,
      error(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
        'context_length_exceeded',
      ),
      {},
      'context_window_exceeded',
    ],
    [
      'Mistral context message',
      400,
      json({
        object: 'error',
        message: 'Prompt contains 200000 tokens, too large for model with 131072 maximum context length',
        type: 'invalid_request_error',
        code: null,
      }),
      {},
      'context_window_exceeded',
    ],
    [
      'vLLM context message',
      400,
      json({
        object: 'error',
        message: "The input (250000 tokens) is longer than the model's context length (200000 tokens).",
        type: 'BadRequestError',
        code: 400,
      }),
      {},
      'context_window_exceeded',
    ],
    [
      'DeepSeek context message',
      400,
      error(
        "This model's maximum context length is 65536 tokens. However, you requested 69648 tokens (69648 in the messages, 0 in the completion).",
      ),
      {},
      'context_window_exceeded',
    ],
    [
      'Groq context message',
      400,
      error('Please reduce the length of the messages or completion.'),
      {},
      'context_window_exceeded',
    ],
    ['payload too large', 413, 'Request Entity Too Large', {}, 'context_window_exceeded'],
    [
      'rate limit',
      429,
      error('Rate limit reached', 'rate_limit_exceeded', 'requests'),
      { 'retry-after': '2' },
      'rate_limited',
    ],
    [
      'quota is not a rate limit',
      429,
      error('You exceeded your current quota', 'insufficient_quota'),
      {},
      'quota_exceeded',
    ],
    [
      'OpenRouter credits',
      402,
      json({ error: { message: 'Insufficient credits', code: 402 } }),
      {},
      'quota_exceeded',
    ],
    ['bad key', 401, error('Incorrect API key provided: sk-ab***yz.', 'invalid_api_key'), {}, 'auth_failed'],
    [
      'unknown model',
      404,
      error('The model `gpt-9` does not exist or you do not have access to it.', 'model_not_found'),
      {},
      'model_unavailable',
    ],
    [
      'Azure deployment',
      404,
      json({
        error: {
          code: 'DeploymentNotFound',
          message: 'The API deployment for this resource does not exist.',
        },
      }),
      {},
      'model_unavailable',
    ],
    [
      'Azure bare not found is ours',
      404,
      json({ error: { code: '404', message: 'Resource not found' } }),
      {},
      'bad_request_internal',
    ],
    [
      'Azure prompt filter is the user',
      400,
      json({
        error: {
          code: 'content_filter',
          message: 'The response was filtered',
          innererror: { code: 'ResponsibleAIPolicyViolation' },
        },
      }),
      {},
      'bad_request_user',
    ],
    [
      'a 400 we built',
      400,
      error("Invalid 'tools[0].function.name': string does not match pattern."),
      {},
      'bad_request_internal',
    ],
    ['outage', 503, error('The server is overloaded', null, 'server_error'), {}, 'provider_outage'],
    [
      'HTML error page saying context',
      502,
      '<html><body>maximum context length deprecated model</body></html>',
      {},
      'provider_outage',
    ],
    ['HTML 400 page is never the user', 400, '<html>model not found</html>', {}, 'bad_request_internal'],
  ];

  for (const [label, status, body, headers, expected] of cases) {
    it(`${label}: ${status} -> ${expected}`, () => {
      expect(classifyOpenAIError('OpenAI', status, body, headers).class).toBe(expected);
    });
  }

  it('keeps retry-after, in seconds or milliseconds', () => {
    expect(classifyOpenAIError('OpenAI', 429, '{}', { 'retry-after': '2' }).retryAfterMs).toBe(2_000);
    expect(classifyOpenAIError('Azure OpenAI', 429, '{}', { 'retry-after-ms': '150' }).retryAfterMs).toBe(
      150,
    );
  });

  it('never repeats a credential the provider quoted', () => {
    const classified = classifyOpenAIError(
      'OpenAI',
      401,
      error('Incorrect API key provided: sk-proj-abcdef123456.', 'invalid_api_key'),
      {},
    );
    expect(classified.message).not.toContain('sk-');
    const other = classifyOpenAIError(
      'OpenAI',
      400,
      error('bad header Authorization: Bearer sk-secret-value-123'),
      {},
    );
    expect(other.message).not.toContain('sk-secret');
  });
});
