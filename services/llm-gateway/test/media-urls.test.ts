import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MeshError, type ChatEvent, type ChatRequestInput } from '@flowmesh/contracts';
import { gatewayChat } from '@flowmesh/gateway-chat';
import {
  startFakeAnthropic,
  startFakeBedrock,
  startFakeGemini,
  startFakeOpenAI,
  type FakeAnthropic,
  type FakeBedrock,
  type FakeGemini,
  type FakeOpenAI,
} from '@flowmesh/testing';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

/**
 * Images and PDFs by URL: the gateway fetches them through its SSRF guard (127.0.0.1 allowed,
 * 127.0.0.2 not), within its size and time limits, checks what they are, and hands the provider
 * the bytes inline. What each fake provider received is asserted exactly.
 */

const ANTHROPIC_KEY = 'sk-ant-media-0123456789abcdefghij';
const GEMINI_KEY = 'AIzaMedia0123456789abcdefghijklmnop';
const BEDROCK_KEY = 'bedrock-media-key-0123456789abcdef';
const OPENAI_KEY = 'sk-media-0123456789abcdefghijklmn';
const MAX_MEDIA_BYTES = 64 * 1024;

// A real 1x1 PNG, a JPEG start, a PDF: the gateway judges the bytes, not the file name.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('JFIF media test')]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n');
const BIG = Buffer.concat([PNG, Buffer.alloc(MAX_MEDIA_BYTES + 1)]);

interface MediaServer {
  readonly url: string;
  readonly paths: string[];
  /** The user agent of every request, in order. */
  readonly agents: string[];
  close(): Promise<void>;
}

/** Serves the test files on `host`, recording every path asked for. */
async function startMediaServer(host: string, elsewhere?: () => string): Promise<MediaServer> {
  const paths: string[] = [];
  const agents: string[] = [];
  let barrier: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    paths.push(path);
    agents.push(req.headers['user-agent'] ?? '');
    const send = (status: number, type: string | undefined, body: Buffer | string, length = true) => {
      res.writeHead(status, {
        ...(type ? { 'content-type': type } : {}),
        ...(length ? { 'content-length': Buffer.byteLength(body) } : {}),
      });
      res.end(body);
    };
    switch (path) {
      case '/cat.png':
        return send(200, 'image/png', PNG);
      case '/photo':
        return send(200, 'application/octet-stream', JPEG);
      case '/kept.png':
        res.setHeader('cache-control', 'public, max-age=600');
        return send(200, 'image/png', PNG);
      case '/fresh.png':
        res.setHeader('cache-control', 'no-store');
        return send(200, 'image/png', PNG);
      case '/report.pdf':
        return send(200, 'application/pdf; qs=0.001', PDF);
      case '/page.html':
        return send(200, 'text/html; charset=utf-8', '<html>not an image</html>');
      case '/lying.png':
        return send(200, 'image/png', 'GIF? no, just text');
      case '/big.png':
        return send(200, 'image/png', BIG);
      case '/big-chunked.png': {
        // No content-length: the limit must hold while reading.
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(PNG);
        const chunk = Buffer.alloc(16 * 1024);
        for (let sent = 0; sent <= MAX_MEDIA_BYTES; sent += chunk.length) res.write(chunk);
        return res.end();
      }
      case '/missing.png':
        return send(404, 'text/plain', 'no such file');
      case '/hang.png':
        return; // never answers
      case '/to-elsewhere':
        res.writeHead(302, { location: `${elsewhere?.() ?? ''}/cat.png` });
        return res.end();
      case '/pair-a.png':
      case '/pair-b.png': {
        // Answers only once both halves of the pair are being fetched: sequential fetches time out.
        barrier.push(() => send(200, 'image/png', PNG));
        if (barrier.length === 2) {
          for (const release of barrier) release();
          barrier = [];
        }
        return;
      }
      default:
        return send(404, 'text/plain', 'unknown');
    }
  });
  server.keepAliveTimeout = 500;
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    paths,
    agents,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('llm-gateway: images and PDFs by URL', () => {
  let cast: GatewayCast;
  let media: MediaServer;
  let forbidden: MediaServer;
  let anthropic: FakeAnthropic;
  let gemini: FakeGemini;
  let bedrock: FakeBedrock;
  let openaiFake: FakeOpenAI;

  const client = (resource: string) =>
    new OpenAI({
      apiKey: cast.reader.token,
      baseURL: `${cast.gateway.url}/v1`,
      defaultHeaders: cast.headers(resource),
      maxRetries: 0,
    });

  const askWithImage = (resource: string, url: string, model = 'claude-sonnet-4-5') =>
    client(resource).chat.completions.create({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    });

  const refusalOf = async (url: string) => {
    const before = anthropic.requests.length;
    const error = await askWithImage('f/ai/claude', url).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    // Nothing went to the provider: the caller's mistake is never the provider's.
    expect(anthropic.requests.length).toBe(before);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const failure = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(failure.status).toBe(400);
    expect(failure.param).toBe('messages[0].content[1].image_url.url');
    expect(failure.message).toContain('messages[0].content[1].image_url.url: ');
    return failure.message;
  };

  beforeAll(async () => {
    forbidden = await startMediaServer('127.0.0.2');
    [media, anthropic, gemini, bedrock, openaiFake] = await Promise.all([
      startMediaServer('127.0.0.1', () => forbidden.url),
      startFakeAnthropic({ apiKey: ANTHROPIC_KEY }),
      startFakeGemini({ apiKey: GEMINI_KEY }),
      startFakeBedrock({ bearerToken: BEDROCK_KEY, region: 'us-east-1' }),
      startFakeOpenAI({ apiKey: OPENAI_KEY }),
    ]);
    anthropic.setDefaultReply({
      content: [{ type: 'text', text: 'A cat.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 2 },
    });
    gemini.setDefaultReply({
      parts: [{ text: 'A cat.' }],
      finishReason: 'STOP',
      usage: { promptTokenCount: 10, candidatesTokenCount: 2 },
    });
    bedrock.setDefaultReply({
      content: [{ text: 'A cat.' }],
      stopReason: 'end_turn',
      usage: { inputTokens: 10, outputTokens: 2 },
    });
    openaiFake.setDefaultReply({ text: 'A cat.' });
    cast = await startGatewayCast({
      captureLogs: true,
      gatewayEnv: {
        // The fakes and the media server on 127.0.0.1 only; 127.0.0.2 stands for an internal host.
        FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
        FLOWMESH_GATEWAY_MAX_MEDIA_BYTES: String(MAX_MEDIA_BYTES),
        FLOWMESH_GATEWAY_MEDIA_TIMEOUT_MS: '1500',
      },
    });
    await cast.providerResource('f/ai/claude', 'anthropic', { base_url: anthropic.url }, ANTHROPIC_KEY);
    await cast.providerResource('f/ai/gemini', 'googleai', { base_url: `${gemini.url}/v1beta` }, GEMINI_KEY);
    await cast.providerResource(
      'f/ai/bedrock',
      'aws_bedrock',
      { base_url: bedrock.url, region: 'us-east-1' },
      BEDROCK_KEY,
    );
    await cast.providerResource('f/ai/openai', 'openai', { base_url: `${openaiFake.url}/v1` }, OPENAI_KEY);
  });

  afterAll(async () => {
    await cast?.stop();
    await Promise.all(
      [media, forbidden, anthropic, gemini, bedrock, openaiFake].map((server) => server?.close()),
    );
  });

  beforeEach(() => {
    media.paths.length = 0;
    media.agents.length = 0;
    forbidden.paths.length = 0;
  });

  it('a file the workspace used before is not fetched again (an agent resends its images every turn), unless its server said no-store', async () => {
    const inlined = (request: { body: unknown }) =>
      JSON.stringify(request.body).includes(PNG.toString('base64'));
    for (let turn = 0; turn < 3; turn++) {
      await askWithImage('f/ai/claude', `${media.url}/kept.png`);
      expect(inlined(anthropic.lastRequest())).toBe(true);
      await askWithImage('f/ai/claude', `${media.url}/fresh.png`);
      expect(inlined(anthropic.lastRequest())).toBe(true);
    }
    expect(media.paths.filter((path) => path === '/kept.png')).toHaveLength(1);
    expect(media.paths.filter((path) => path === '/fresh.png')).toHaveLength(3);
  });

  it('Anthropic: the official openai SDK sends an image and a PDF by URL; Anthropic gets both inline', async () => {
    const answer = await client('f/ai/claude').chat.completions.create({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image_url', image_url: { url: `${media.url}/cat.png?sig=s3cr3t-query` } },
            { type: 'file', file: { filename: 'report.pdf', file_data: `${media.url}/report.pdf` } },
          ],
        },
      ],
    });
    expect(answer.choices[0]?.message.content).toBe('A cat.');
    const sent = anthropic.lastRequest().body as { messages: unknown; system: unknown };
    expect(sent.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') },
          },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') },
            title: 'report.pdf',
          },
        ],
      },
    ]);
    expect(media.paths.sort()).toEqual(['/cat.png', '/report.pdf']);
    // Neither the file's content nor the URL's query reaches a log line.
    expect(cast.gatewayLog.text).not.toContain(PNG.toString('base64'));
    expect(cast.gatewayLog.text).not.toContain('s3cr3t-query');
  });

  // What each translated provider must receive for the PNG the Vercel AI SDK passes by URL.
  const inlinePng = {
    anthropic: () => ({
      sent: (anthropic.lastRequest().body as { messages: Array<{ content: unknown[] }> }).messages,
      image: {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') },
      },
      text: { type: 'text', text: 'What is it?' },
    }),
    gemini: () => ({
      sent: (gemini.lastRequest().body as { contents: Array<{ parts: unknown[] }> }).contents.map((turn) => ({
        content: turn.parts,
      })),
      image: { inlineData: { mimeType: 'image/png', data: PNG.toString('base64') } },
      text: { text: 'What is it?' },
    }),
    bedrock: () => ({
      sent: (bedrock.lastRequest().body as { messages: Array<{ content: unknown[] }> }).messages,
      image: { image: { format: 'png', source: { bytes: PNG.toString('base64') } } },
      text: { text: 'What is it?' },
    }),
  };

  it.each([
    ['Anthropic', 'f/ai/claude', 'claude-sonnet-4-5', 'anthropic'],
    ['Gemini', 'f/ai/gemini', 'gemini-2.5-flash', 'gemini'],
    ['Bedrock', 'f/ai/bedrock', 'anthropic.claude-3-5-sonnet-20240620-v1:0', 'bedrock'],
  ] as const)(
    'the Vercel AI SDK passes an image URL on (its OpenAI chat model takes URLs); the gateway fetches it, %s gets it inline',
    async (_name, resource, model, provider) => {
      const sdk = createOpenAI({
        apiKey: cast.reader.token,
        baseURL: `${cast.gateway.url}/v1`,
        headers: cast.headers(resource),
      });
      const { text } = await generateText({
        model: sdk.chat(model),
        maxRetries: 0,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is it?' },
              {
                type: 'file',
                mediaType: 'image/png',
                data: new URL(`${media.url}/cat.png?via=ai-sdk-${provider}`),
              },
            ],
          },
        ],
      });
      expect(text).toBe('A cat.');
      expect(media.paths).toEqual(['/cat.png']);
      expect(media.agents).toEqual(['flowmesh-llm-gateway']);
      const expected = inlinePng[provider]();
      expect(expected.sent).toHaveLength(1);
      expect(expected.sent[0]?.content).toEqual([expected.text, expected.image]);
    },
  );

  it('Gemini: the image arrives as inlineData, its type judged from the bytes (octet-stream JPEG)', async () => {
    await askWithImage('f/ai/gemini', `${media.url}/photo`, 'gemini-2.5-flash');
    const sent = gemini.lastRequest().body as { contents: unknown };
    expect(sent.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What is in this picture?' },
          { inlineData: { mimeType: 'image/jpeg', data: JPEG.toString('base64') } },
        ],
      },
    ]);
  });

  it('Bedrock: the image arrives as Converse image bytes', async () => {
    await askWithImage('f/ai/bedrock', `${media.url}/cat.png`, 'anthropic.claude-3-5-sonnet-20240620-v1:0');
    const sent = bedrock.lastRequest().body as { messages: unknown };
    expect(sent.messages).toEqual([
      {
        role: 'user',
        content: [
          { text: 'What is in this picture?' },
          { image: { format: 'png', source: { bytes: PNG.toString('base64') } } },
        ],
      },
    ]);
  });

  it('OpenAI (forwarded as received): the URL goes to the provider unchanged and the gateway fetches nothing', async () => {
    await askWithImage('f/ai/openai', `${media.url}/cat.png`, 'gpt-4o-mini');
    const sent = openaiFake.lastRequest().body as { messages: Array<{ content: unknown }> };
    expect(sent.messages[0]?.content).toEqual([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: `${media.url}/cat.png` } },
    ]);
    expect(media.paths).toEqual([]);
  });

  it('fetches the parts of one request in parallel', async () => {
    // Each half answers only once the other is being fetched too (else both time out at 1.5 s).
    await client('f/ai/claude').chat.completions.create({
      model: 'claude-sonnet-4-5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `${media.url}/pair-a.png` } },
            { type: 'image_url', image_url: { url: `${media.url}/pair-b.png` } },
          ],
        },
      ],
    });
    expect(media.paths.sort()).toEqual(['/pair-a.png', '/pair-b.png']);
    const sent = anthropic.lastRequest().body as { messages: Array<{ content: unknown[] }> };
    expect(sent.messages[0]?.content).toHaveLength(2);
  });

  it('refuses a loopback address outside the allow-list, before any byte leaves', async () => {
    const message = await refusalOf(`${forbidden.url}/cat.png`);
    expect(message).toContain('refused');
    expect(message).toContain('FLOWMESH_OUTBOUND_ALLOW_CIDRS');
    expect(forbidden.paths).toEqual([]);
  });

  it('refuses a redirect to an address outside the allow-list', async () => {
    const message = await refusalOf(`${media.url}/to-elsewhere`);
    expect(message).toContain('refused');
    expect(media.paths).toEqual(['/to-elsewhere']);
    expect(forbidden.paths).toEqual([]);
  });

  it('refuses the cloud metadata address', async () => {
    expect(await refusalOf('http://169.254.169.254/latest/meta-data/cat.png')).toContain('refused');
  });

  it('refuses a file over FLOWMESH_GATEWAY_MAX_MEDIA_BYTES, announced or streamed', async () => {
    expect(await refusalOf(`${media.url}/big.png`)).toContain(
      `is larger than ${MAX_MEDIA_BYTES} bytes (FLOWMESH_GATEWAY_MAX_MEDIA_BYTES)`,
    );
    expect(await refusalOf(`${media.url}/big-chunked.png`)).toContain(
      `is larger than ${MAX_MEDIA_BYTES} bytes`,
    );
  });

  it('refuses content that is not an image: by its declared type, and by its bytes', async () => {
    expect(await refusalOf(`${media.url}/page.html`)).toContain(
      'is text/html, not image/png, image/jpeg, image/gif or image/webp',
    );
    expect(await refusalOf(`${media.url}/lying.png`)).toContain('its bytes are none of them');
    // A PDF is a file, not an image_url.
    expect(await refusalOf(`${media.url}/report.pdf`)).toContain('is application/pdf, not image/png');
  });

  it('an HTTP error, a timeout, an unreachable host are the caller’s 400, naming the reason', async () => {
    expect(await refusalOf(`${media.url}/missing.png`)).toContain('answered HTTP 404');
    expect(await refusalOf(`${media.url}/hang.png`)).toContain('within 1500 ms');
    const closed = await startMediaServer('127.0.0.1');
    const port = new URL(closed.url).port;
    await closed.close();
    expect(await refusalOf(`http://127.0.0.1:${port}/cat.png`)).toContain('unreachable');
  });

  describe('over NATS (a `url` part of the chat request)', () => {
    const chatRequest = (url: string): ChatRequestInput => ({
      actor: cast.reader,
      workspace: 'main',
      provider: { kind: 'anthropic', resource: 'f/ai/claude', model: 'claude-sonnet-4-5' },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Read this.' },
            { type: 'url', url, filename: 'report.pdf' },
          ],
        },
      ],
    });
    const events = async (url: string) => {
      const seen: ChatEvent[] = [];
      for await (const event of await gatewayChat(cast.registry.conn, chatRequest(url))) seen.push(event);
      return seen;
    };

    it('fetches the file and sends it inline', async () => {
      const seen = await events(`${media.url}/report.pdf?run=${randomUUID()}`);
      expect(seen.at(-1)).toMatchObject({ type: 'message' });
      const sent = anthropic.lastRequest().body as { messages: unknown };
      expect(sent.messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Read this.' },
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') },
              title: 'report.pdf',
            },
          ],
        },
      ]);
    });

    it('refuses an address literal outside the allow-list in the start reply', async () => {
      const refusal = await gatewayChat(cast.registry.conn, chatRequest(`${forbidden.url}/cat.png`)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(MeshError);
      expect(refusal).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('messages[0].content[1].url: refused') as unknown,
      });
      expect(forbidden.paths).toEqual([]);
    });

    it('ends the chat with bad_request_user naming the part when the file cannot be used', async () => {
      const before = anthropic.requests.length;
      const seen = await events(`${media.url}/missing.png`);
      expect(seen).toEqual([
        {
          type: 'error',
          error: {
            class: 'bad_request_user',
            message: `messages[0].content[1].url: could not be fetched: ${new URL(media.url).host} answered HTTP 404`,
          },
        },
      ]);
      expect(anthropic.requests.length).toBe(before);
    });
  });
});
