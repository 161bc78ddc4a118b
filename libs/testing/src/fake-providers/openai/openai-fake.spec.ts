import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openAIContextExceededReply,
  openAIRateLimitReply,
  startFakeOpenAI,
  type FakeOpenAI,
} from './openai-fake.server.js';

/** The fake speaks the wire closely enough that the official SDK works against it unchanged. */
describe('fake OpenAI API, checked with the official openai SDK', () => {
  let fake: FakeOpenAI;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
    client = new OpenAI({ apiKey: 'sk-fake', baseURL: `${fake.url}/v1`, maxRetries: 0 });
  });

  afterAll(() => fake.close());

  it('answers a completion as JSON', async () => {
    fake.reply({ text: 'Hello!', usage: { prompt_tokens: 9, completion_tokens: 2, cached_tokens: 4 } });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Hello!');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({
      prompt_tokens: 9,
      completion_tokens: 2,
      prompt_tokens_details: { cached_tokens: 4 },
    });
    expect(fake.lastRequest()).toMatchObject({
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-fake' },
    });
  });

  it('streams parallel tool calls the SDK reassembles, and the usage chunk', async () => {
    fake.reply({
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_b', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
      ],
      deltaSize: 3,
    });
    const stream = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    const completion = await stream.finalChatCompletion();
    expect(
      completion.choices[0]?.message.tool_calls?.map(
        (call) => call.type === 'function' && [call.id, call.function.arguments],
      ),
    ).toEqual([
      ['call_a', '{"city":"Paris"}'],
      ['call_b', '{"city":"Tokyo"}'],
    ]);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.usage?.total_tokens).toBe(15);
  });

  it('serves embeddings (floats, and base64 as the SDK asks by default) and the model list', async () => {
    const floats = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a', 'b'],
      dimensions: 3,
      encoding_format: 'float',
    });
    expect(floats.data.map((entry) => entry.embedding.length)).toEqual([3, 3]);
    const decoded = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'a',
      dimensions: 3,
    });
    expect(fake.lastRequest().body).toMatchObject({ encoding_format: 'base64' });
    expect(decoded.data[0]?.embedding.map((value) => Number(value.toFixed(5)))).toEqual(
      floats.data[0]?.embedding.map((value) => Number(value.toFixed(5))),
    );
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toContain('gpt-4o-mini');
  });

  it('fails like the API: context overflow, rate limit with retry-after, bad key, malformed request', async () => {
    fake.reply(openAIContextExceededReply(), openAIRateLimitReply(2));
    const overflow = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(overflow).toBeInstanceOf(OpenAI.BadRequestError);
    expect((overflow as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
    const limited = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('2');

    const wrongKey = new OpenAI({ apiKey: 'sk-wrong', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    await expect(wrongKey.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);

    const bad = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect(fake.pending).toBe(0);
  });

  it("takes Azure's deployment URL with its api-version (and 404s without one)", async () => {
    fake.reply({ text: 'from Azure' });
    const azure = new AzureOpenAI({
      apiKey: 'sk-fake',
      endpoint: fake.url,
      apiVersion: '2024-10-21',
      deployment: 'prod-gpt4o',
      maxRetries: 0,
    });
    const completion = await azure.chat.completions.create({
      model: 'ignored',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('from Azure');
    expect(completion.model).toBe('prod-gpt4o-2024-07-18');
    expect(fake.lastRequest()).toMatchObject({
      path: '/openai/deployments/prod-gpt4o/chat/completions',
      query: { 'api-version': '2024-10-21' },
      headers: { 'api-key': 'sk-fake' },
    });
    const missing = await fetch(`${fake.url}/openai/deployments/prod-gpt4o/chat/completions`, {
      method: 'POST',
      headers: { 'api-key': 'sk-fake', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: '404', message: 'Resource not found' } });
  });
});
