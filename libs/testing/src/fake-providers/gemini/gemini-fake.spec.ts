import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiContextExceededReply, startFakeGemini, type FakeGemini } from './gemini-fake.server.js';

async function post(
  fake: FakeGemini,
  path: string,
  body: unknown,
  headers: Record<string, string> = { 'x-goog-api-key': 'g-key' },
) {
  return fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const hello = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };

describe('fake Gemini API', () => {
  let fake: FakeGemini;
  beforeAll(async () => {
    fake = await startFakeGemini({ apiKey: 'g-key', requireThoughtSignatures: true });
  });
  afterAll(() => fake.close());

  it('answers generateContent with usage metadata incl. cached and thought tokens', async () => {
    fake.reply({
      parts: [{ text: 'Hello' }],
      usage: {
        promptTokenCount: 12,
        candidatesTokenCount: 3,
        thoughtsTokenCount: 4,
        cachedContentTokenCount: 6,
      },
    });
    const response = await post(fake, '/v1beta/models/gemini-2.5-flash:generateContent', hello);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Hello' }] }, finishReason: 'STOP' }],
      usageMetadata: {
        promptTokenCount: 12,
        candidatesTokenCount: 3,
        thoughtsTokenCount: 4,
        cachedContentTokenCount: 6,
        totalTokenCount: 19,
      },
      modelVersion: 'gemini-2.5-flash',
    });
  });

  it('streams SSE with CRLF frames, no [DONE], function calls whole with their signature', async () => {
    fake.reply({
      parts: [
        { text: 'Thinking hard', thought: true },
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-1' },
      ],
      chunkSize: 5,
    });
    const response = await post(fake, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', hello);
    const text = await response.text();
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const frames = text.split('\r\n\r\n').filter(Boolean);
    expect(frames.every((frame) => frame.startsWith('data: '))).toBe(true);
    expect(text).not.toContain('[DONE]');
    const chunks = frames.map(
      (frame) =>
        JSON.parse(frame.slice(6)) as {
          candidates: { content: { parts: unknown[] }; finishReason?: string }[];
        },
    );
    expect(chunks.map((chunk) => chunk.candidates[0]?.content.parts[0])).toEqual([
      { text: 'Think', thought: true },
      { text: 'ing h', thought: true },
      { text: 'ard', thought: true },
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-1' },
    ]);
    expect(chunks.at(-1)?.candidates[0]?.finishReason).toBe('STOP');
    expect(fake.lastRequest().query).toEqual({ alt: 'sse' });
  });

  it('answers streamGenerateContent without alt=sse as one JSON array', async () => {
    fake.reply({ parts: [{ text: 'abcdefghij' }] });
    const response = await post(fake, '/v1beta/models/gemini-2.5-flash:streamGenerateContent', hello);
    expect(((await response.json()) as unknown[]).length).toBe(2);
  });

  it('sends the context-window error in the API shape', async () => {
    fake.reply(geminiContextExceededReply());
    const response = await post(fake, '/v1beta/models/gemini-2.5-flash:generateContent', hello);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).',
      },
    });
  });

  it('refuses a bad key, unknown fields, JSON-schema-only keywords and a lost thought signature', async () => {
    const badKey = await post(fake, '/v1beta/models/m:generateContent', hello, { 'x-goog-api-key': 'nope' });
    expect(badKey.status).toBe(400);
    expect(JSON.stringify(await badKey.json())).toContain('API_KEY_INVALID');

    const unknown = await post(fake, '/v1beta/models/m:generateContent', { ...hello, system: 'x' });
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      'Unknown name "system"',
    );

    const schema = await post(fake, '/v1beta/models/m:generateContent', {
      ...hello,
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: { type: 'object', additionalProperties: false },
      },
    });
    expect(((await schema.json()) as { error: { message: string } }).error.message).toContain(
      'additionalProperties',
    );

    const unsigned = await post(fake, '/v1beta/models/m:generateContent', {
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { result: 'rainy' } } }],
        },
      ],
    });
    expect(((await unsigned.json()) as { error: { message: string } }).error.message).toContain(
      'missing a thought_signature',
    );
    expect(fake.requests.at(-1)?.body).toMatchObject({
      contents: [{ role: 'user' }, { role: 'model' }, { role: 'user' }],
    });
  });

  it('answers the Vertex path shape too', async () => {
    fake.reply({ parts: [{ text: 'v' }] });
    const response = await post(
      fake,
      '/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent',
      hello,
    );
    expect(response.status).toBe(200);
  });
});
