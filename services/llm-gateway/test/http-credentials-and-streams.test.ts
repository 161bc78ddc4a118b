import { startFakeOpenAI, waitFor, type FakeOpenAI } from '@flowmesh/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayCast, WORKSPACE, type GatewayCast } from './support/gateway-cast.js';

const FIRST_KEY = 'sk-first-aaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const SECOND_KEY = 'sk-second-bbbbbbbbbbbbbbbbbbbbbbbbbb';
const THIRD_KEY = 'sk-third-cccccccccccccccccccccccccccc';
const KEEPALIVE_MS = 60;

describe('llm-gateway HTTP: cached credentials, secrets out of logs, keepalives', () => {
  let cast: GatewayCast;
  let fake: FakeOpenAI;
  /** Interpolation requests the gateway sent to the registry (each is a credential cache miss). */
  let registryReads = 0;

  const ask = () =>
    new OpenAI({
      apiKey: cast.reader.token,
      baseURL: `${cast.gateway.url}/v1`,
      defaultHeaders: cast.headers('f/ai/rotating'),
      maxRetries: 0,
    }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

  const keyOfLastCall = () => fake.chatRequests().at(-1)?.headers.authorization;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.setDefaultReply({ text: 'ok' });
    cast = await startGatewayCast({
      captureLogs: true,
      gatewayEnv: {
        FLOWMESH_GATEWAY_SSE_KEEPALIVE_MS: String(KEEPALIVE_MS),
        FLOWMESH_GATEWAY_CREDENTIALS_TTL_MS: '600000',
      },
    });
    const conn = cast.registry.conn;
    conn.nc.subscribe(conn.space.subject('registry.resource.resolve'), {
      callback: () => {
        registryReads++;
      },
    });
    await cast.providerResource('f/ai/rotating', 'openai', { base_url: `${fake.url}/v1` }, FIRST_KEY);
  });

  afterAll(async () => {
    await cast?.stop();
    await fake?.close();
  });

  it('reuses resolved credentials, and uses the new key as soon as the registry announces a change', async () => {
    await ask();
    expect(keyOfLastCall()).toBe(`Bearer ${FIRST_KEY}`);
    const readsAfterFirst = registryReads;
    expect(readsAfterFirst).toBeGreaterThan(0);
    await ask();
    expect(registryReads).toBe(readsAfterFirst);

    // The resource now points at another secret: a resource change event.
    const inMain = { actor: cast.admin, workspace: WORKSPACE };
    await cast.items.createVariable({
      ...inMain,
      path: 'f/ai/rotating_key2',
      value: SECOND_KEY,
      is_secret: true,
    });
    await cast.items.updateResourceValue({
      ...inMain,
      path: 'f/ai/rotating',
      value: { base_url: `${fake.url}/v1`, api_key: '$var:f/ai/rotating_key2' },
    });
    await waitFor(async () => (await ask(), keyOfLastCall() === `Bearer ${SECOND_KEY}`), {
      description: 'a call with the key of the updated resource',
    });

    // The secret itself changes: a variable event drops the workspace's cached credentials.
    await cast.items.updateVariable({ ...inMain, path: 'f/ai/rotating_key2', value: THIRD_KEY });
    await waitFor(async () => (await ask(), keyOfLastCall() === `Bearer ${THIRD_KEY}`), {
      description: 'a call with the rotated secret',
    });
  });

  it('sends keepalive comments while a streamed upstream is silent, and hanging up aborts the upstream call', async () => {
    fake.reply({ silentStream: true });
    const controller = new AbortController();
    const response = await fetch(`${cast.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cast.reader.token}`,
        'content-type': 'application/json',
        ...cast.headers('f/ai/rotating'),
      },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'think slowly' }],
      }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = '';
    try {
      // Keepalives after the upstream's first chunk (one may come before it too, when the
      // upstream is slow to answer at all: the stream then opens early).
      while ((received.split('"chat.completion.chunk"')[1]?.match(/: keepalive\n\n/g)?.length ?? 0) < 2) {
        const { value, done } = await reader.read();
        if (done) break;
        received += decoder.decode(value, { stream: true });
      }
    } finally {
      controller.abort();
    }
    expect(received).toMatch(
      /^(: keepalive\n\n)*data: \{.*"chat\.completion\.chunk".*\n\n(: keepalive\n\n){2}$/s,
    );
    await waitFor(() => fake.chatRequests().at(-1)?.aborted, {
      description: 'the upstream call to be aborted',
    });
  });

  it('never writes a secret or a caller token to either service log', async () => {
    // A failing call too: the provider quotes part of the key back in its error.
    fake.reply({
      error: {
        status: 401,
        message: `Incorrect API key provided: ${THIRD_KEY}.`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    });
    const failure = await ask().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((failure as Error).message).not.toContain(THIRD_KEY);

    expect(cast.gatewayLog.lines.length).toBeGreaterThan(0);
    const logs = `${cast.gatewayLog.text}\n${cast.registryLog.text}`;
    for (const secret of [FIRST_KEY, SECOND_KEY, THIRD_KEY, cast.reader.token, cast.admin.token]) {
      expect(logs).not.toContain(secret);
    }
  });
});
