import { OutboundPolicy } from '@flowmesh/outbound';
import { startFakeBedrock, type FakeBedrock } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatCall, ProviderStreamEvent } from '../provider-adapter.js';
import { sealCredentials, type ProviderCredentials } from '../provider-credentials.js';
import { bedrockAdapter } from './bedrock.adapter.js';

const call: ChatCall = {
  model: 'm1',
  stream: true,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
};

const credentials = (extra: Partial<ProviderCredentials>): ProviderCredentials =>
  sealCredentials({
    provider: 'aws_bedrock',
    platform: 'standard',
    region: 'eu-west-1',
    enable_1m_context: false,
    custom_headers: {},
    ...extra,
  });

async function run(
  creds: ProviderCredentials,
  policy: OutboundPolicy,
  signal = new AbortController().signal,
): Promise<ProviderStreamEvent[]> {
  const events: ProviderStreamEvent[] = [];
  for await (const event of bedrockAdapter.chat(call, creds, signal, {
    outboundPolicy: policy,
    headers: { 'x-team': 'platform' },
  }))
    events.push(event);
  return events;
}

describe('bedrock client: outbound rules, headers and credentials', () => {
  let fake: FakeBedrock;
  beforeAll(async () => {
    fake = await startFakeBedrock({ bearerToken: 'key-1' });
  });
  afterAll(() => fake.close());

  it('refuses an endpoint override on a loopback address, by IP literal or by name, unless allow-listed', async () => {
    const port = new URL(fake.url).port;
    const closed = new OutboundPolicy([]);
    await expect(run(credentials({ api_key: 'key-1', base_url: fake.url }), closed)).rejects.toMatchObject({
      name: 'OutboundRefusedError',
    });
    await expect(
      run(credentials({ api_key: 'key-1', base_url: `http://localhost:${port}` }), closed),
    ).rejects.toMatchObject({
      name: 'OutboundRefusedError',
      message: expect.stringContaining('localhost') as unknown,
    });
    expect(fake.requests).toHaveLength(0);

    fake.reply({ content: [{ text: 'ok' }] });
    const events = await run(
      credentials({
        api_key: 'key-1',
        base_url: `http://localhost:${port}`,
        custom_headers: { 'x-resource': 'r1' },
      }),
      new OutboundPolicy(['127.0.0.0/8', '::1/128']),
    );
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(fake.lastRequest().headers).toMatchObject({
      authorization: 'Bearer key-1',
      'x-team': 'platform',
      'x-resource': 'r1',
    });
  });

  it('signs only with the resource credentials: a resource with neither key nor access keys is refused before any call', async () => {
    const before = fake.requests.length;
    await expect(
      run(credentials({ base_url: fake.url }), new OutboundPolicy(['127.0.0.0/8'])),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect(fake.requests.length).toBe(before);
  });

  it('classifies a refused bearer key as auth_failed without quoting the provider', async () => {
    await expect(
      run(credentials({ api_key: 'wrong', base_url: fake.url }), new OutboundPolicy(['127.0.0.0/8'])),
    ).rejects.toMatchObject({
      providerError: { class: 'auth_failed', status: 403, providerCode: 'AccessDeniedException' },
    });
  });
});
