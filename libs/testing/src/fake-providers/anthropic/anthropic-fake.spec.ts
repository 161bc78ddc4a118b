import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicContextExceededReply,
  startFakeAnthropic,
  type FakeAnthropic,
} from './anthropic-fake.server.js';

// The official SDK is the judge of wire fidelity: if it parses what the fake sends, so will
// any client written against the real API.
describe('fake Anthropic Messages API, checked with @anthropic-ai/sdk', () => {
  let fake: FakeAnthropic;
  let client: Anthropic;

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: 'sk-ant-fake' });
    client = new Anthropic({ apiKey: 'sk-ant-fake', baseURL: fake.url, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  it('answers a plain message with usage including cache fields', async () => {
    fake.reply({
      content: [{ type: 'text', text: 'Hello there' }],
      usage: { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 100 },
    });
    const message = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello there' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({
      input_tokens: 7,
      output_tokens: 3,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 0,
    });
    const request = fake.lastRequest();
    expect(request.path).toBe('/v1/messages');
    expect(request.headers['anthropic-version']).toBe('2026-10-21');
    expect(request.body).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 64 });
  });

  it('streams thinking with its signature, text, and two tool calls that the SDK reassembles', async () => {
    fake.reply({
      content: [
        { type: 'thinking', thinking: 'The user wants two cities.', signature: 'sig-abc' },
        { type: 'redacted_thinking', data: 'opaque-data' },
        { type: 'text', text: 'Let me check both.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Tokyo' } },
      ],
      usage: { input_tokens: 20, output_tokens: 40, cache_creation_input_tokens: 5 },
      deltaSize: 4,
    });
    const stream = client.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Weather in Paris and Tokyo?' }],
    });
    const eventTypes: string[] = [];
    for await (const event of stream) eventTypes.push(event.type);
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'The user wants two cities.', signature: 'sig-abc' },
      { type: 'redacted_thinking', data: 'opaque-data' },
      { type: 'text', text: 'Let me check both.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Tokyo' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({
      input_tokens: 20,
      output_tokens: 40,
      cache_creation_input_tokens: 5,
    });
    expect(eventTypes[0]).toBe('message_start');
    expect(eventTypes.at(-1)).toBe('message_stop');
    expect(fake.lastRequest().body).toMatchObject({ stream: true });
  });

  it('sends the context-window error in the API shape, which the SDK raises as a 400', async () => {
    fake.reply(anthropicContextExceededReply());
    const error = await client.messages
      .create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'long' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' },
    });
  });

  it('refuses sampling parameters under API version 2026-10-21, as the API does', async () => {
    const error = await client.messages
      .create({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        temperature: 0.2,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((error as Error).message)).toContain('temperature');
  });

  it('refuses a wrong key with authentication_error', async () => {
    const stranger = new Anthropic({ apiKey: 'wrong', baseURL: fake.url, maxRetries: 0 });
    await expect(
      stranger.messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('refuses a thinking tool loop whose assistant turn lost its thinking block', async () => {
    const error = await client.messages
      .create({
        model: 'claude-sonnet-4-5',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'rainy' }] },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(String((error as Error).message)).toContain('Expected `thinking` or `redacted_thinking`');
  });

  it('answers the Vertex rawPredict shape (model in the path, anthropic_version in the body)', async () => {
    fake.reply({ content: [{ type: 'text', text: 'from vertex' }] });
    const response = await fetch(
      `${fake.url}/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ya29.token' },
        body: JSON.stringify({
          anthropic_version: 'vertex-2023-10-16',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      model: 'claude-sonnet-4-5@20250929',
      content: [{ type: 'text', text: 'from vertex' }],
    });
    const withModel = await fetch(
      `${fake.url}/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude:rawPredict`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'claude',
          anthropic_version: 'vertex-2023-10-16',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      },
    );
    expect(withModel.status).toBe(400);
  });

  it('fails loudly when a call has no scripted reply', async () => {
    await expect(
      client.messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(Anthropic.InternalServerError);
  });
});
