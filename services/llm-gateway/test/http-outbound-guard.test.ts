import { startFakeOpenAI, type FakeOpenAI } from '@flowmesh/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

const KEY = 'sk-ssrf-dddddddddddddddddddddddddddd';

describe('llm-gateway HTTP: the SSRF guard on provider base URLs, with no allow-list', () => {
  let cast: GatewayCast;
  let fake: FakeOpenAI;

  const ask = (resource: string) =>
    new OpenAI({
      apiKey: cast.reader.token,
      baseURL: `${cast.gateway.url}/v1`,
      defaultHeaders: cast.headers(resource),
      maxRetries: 0,
    }).chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.setDefaultReply({ text: 'should never be asked' });
    // The default: FLOWMESH_OUTBOUND_ALLOW_CIDRS empty, so the fake on 127.0.0.1 is off limits.
    cast = await startGatewayCast({ gatewayEnv: { FLOWMESH_OUTBOUND_ALLOW_CIDRS: '' } });
    const port = new URL(fake.url).port;
    await cast.providerResource('f/ai/loopback', 'customai', { base_url: `${fake.url}/v1` }, KEY);
    await cast.providerResource(
      'f/ai/localhost',
      'customai',
      { base_url: `http://localhost:${port}/v1` },
      KEY,
    );
    await cast.providerResource(
      'f/ai/mapped',
      'customai',
      { base_url: `http://[::ffff:127.0.0.1]:${port}/v1` },
      KEY,
    );
    await cast.providerResource(
      'f/ai/metadata',
      'openai',
      { base_url: 'http://169.254.169.254/latest' },
      KEY,
    );
    await cast.providerResource(
      'f/ai/metadata-name',
      'openai',
      { base_url: 'http://metadata.google.internal/v1' },
      KEY,
    );
  });

  afterAll(async () => {
    await cast?.stop();
    await fake?.close();
  });

  it.each(['f/ai/loopback', 'f/ai/localhost', 'f/ai/mapped', 'f/ai/metadata', 'f/ai/metadata-name'])(
    'refuses %s before any byte leaves, in OpenAI error shape and without the key',
    async (resource) => {
      const error = await ask(resource);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      const message = (error as InstanceType<typeof OpenAI.BadRequestError>).message;
      expect(message).toContain('not an allowed destination');
      expect(message).not.toContain(KEY);
      expect(fake.requests).toEqual([]);
    },
  );
});
