import { FLOWMESH_METRICS, createTestTracing, type TestTracing } from '@flowmesh/telemetry';
import { startFakeGemini, startFakeOpenAI, type FakeGemini, type FakeOpenAI } from '@flowmesh/testing';
import { metrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addFaultResources,
  FAULT_GATEWAY_ENV,
  FAULT_KEY,
  QUOTA_EXHAUSTED,
  unknownModel,
} from './support/fault-fixtures.js';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';
import { OnDemandReader } from './support/on-demand-reader.js';

/**
 * Seed 001's fault classes on the gateway's HTTP edges (OpenAI's API, the workspace proxy),
 * against fakes speaking the providers' wire formats: a failed call's error body says whose
 * fault it is (`error.fault`, beside OpenAI's `type` and `code`), and so do its GenAI span
 * (`flowmesh.fault`) and `flowmesh.llm.call_failures{fault}`. Only the user's own key makes a
 * provider's refusal theirs.
 */

const GEMINI_KEY = 'AIzaFault0123456789abcdefghijklmnop';

interface ErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null; fault?: string };
}

const UNKNOWN_MODEL = unknownModel('gpt-9-imaginary');

describe('fault classes on the HTTP edges', () => {
  let tracing: TestTracing;
  let cast: GatewayCast;
  let openai: FakeOpenAI;
  let gemini: FakeGemini;
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });

  beforeAll(async () => {
    tracing = createTestTracing({ serviceName: 'llm-gateway' });
    metrics.setGlobalMeterProvider(meterProvider);
    [openai, gemini] = await Promise.all([
      startFakeOpenAI({ apiKey: FAULT_KEY }),
      startFakeGemini({ apiKey: GEMINI_KEY }),
    ]);
    cast = await startGatewayCast({ gatewayEnv: FAULT_GATEWAY_ENV });
    await Promise.all([
      addFaultResources(cast, openai.url),
      cast.providerResource(
        'f/ai/gemini_stale',
        'googleai',
        { base_url: `${gemini.url}/v1beta` },
        'AIzaStale0123456789abcdefghijklmnop',
      ),
    ]);
  });

  afterAll(async () => {
    await cast?.stop();
    await Promise.all([openai?.close(), gemini?.close()]);
    await tracing?.shutdown();
    await meterProvider.shutdown();
    metrics.disable();
  });

  const headers = (resource: string) => ({
    authorization: `Bearer ${cast.reader.token}`,
    'content-type': 'application/json',
    ...cast.headers(resource),
  });

  async function call(
    path: string,
    resource: string,
    body?: unknown,
  ): Promise<{ status: number; body: ErrorBody }> {
    const response = await fetch(`${cast.gateway.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: headers(resource),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as ErrorBody };
  }

  const chat = (resource: string, extra: Record<string, unknown> = {}, path = '/v1/chat/completions') =>
    call(path, resource, {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      ...extra,
    });
  const embed = (resource: string, path = '/v1/embeddings') =>
    call(path, resource, { model: 'text-embedding-3-small', input: 'Hi' });

  /** `flowmesh.llm.call_failures` by `error_class/fault`, summed over providers. */
  async function failures(): Promise<Map<string, number>> {
    const { resourceMetrics } = await reader.collect();
    const counter = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((metric) => metric.descriptor.name === FLOWMESH_METRICS.llmCallFailures.name);
    const counts = new Map<string, number>();
    for (const point of counter?.dataPoints ?? []) {
      const { error_class: errorClass, fault } = point.attributes;
      if (errorClass === undefined) continue;
      const key = `${String(errorClass)}/${String(fault)}`;
      counts.set(key, (counts.get(key) ?? 0) + (point.value as number));
    }
    return counts;
  }

  /** The fault on the last span named `name` that ended with an error. */
  function lastSpanFault(name: string): unknown {
    const span = tracing
      .spans()
      .filter((candidate) => candidate.name === name && candidate.attributes['error.type'] !== undefined)
      .at(-1);
    return span?.attributes['flowmesh.fault'];
  }

  describe('chat completions (forwarded to an OpenAI-shaped provider)', () => {
    it("an auth failure on the user's own key is theirs, names the resource, and never pages", async () => {
      const before = (await failures()).get('auth_failed/user') ?? 0;
      const { status, body } = await chat('f/ai/own_stale');
      expect(status).toBe(401);
      expect(body.error).toMatchObject({ type: 'authentication_error', fault: 'user' });
      expect(body.error.message).toContain('fix the key of the provider resource f/ai/own_stale');
      expect(body.error.message).not.toContain('sk-stale');
      expect(lastSpanFault('chat gpt-4o-mini')).toBe('user');
      expect((await failures()).get('auth_failed/user')).toBe(before + 1);
    });

    it('an auth failure on a platform-managed key is ours (it pages), streamed or not', async () => {
      const before = (await failures()).get('auth_failed/internal') ?? 0;
      const plain = await chat('f/ai/platform/stale');
      expect(plain.status).toBe(401);
      expect(plain.body.error).toMatchObject({ type: 'authentication_error', fault: 'internal' });
      expect(plain.body.error.message).not.toContain('fix the key');
      expect(lastSpanFault('chat gpt-4o-mini')).toBe('internal');
      // Refused before the stream opened: the status and the body, not a frame.
      const streamed = await chat('f/ai/platform/stale', { stream: true });
      expect(streamed.status).toBe(401);
      expect(streamed.body.error.fault).toBe('internal');
      expect((await failures()).get('auth_failed/internal')).toBeGreaterThanOrEqual(before + 2);
    });

    it("billing exhaustion is the user's only by the insufficient_quota marker, on their key", async () => {
      openai.reply(QUOTA_EXHAUSTED);
      const own = await chat('f/ai/own');
      expect(own.status).toBe(429);
      expect(own.body.error).toMatchObject({ type: 'insufficient_quota', fault: 'user' });
      openai.reply(QUOTA_EXHAUSTED);
      expect((await chat('f/ai/managed')).body.error).toMatchObject({
        type: 'insufficient_quota',
        fault: 'internal',
      });
      // A 500 whose HTML page talks of credits is an outage, never a billing failure.
      openai.reply({
        raw: {
          status: 500,
          headers: { 'content-type': 'text/html' },
          body: '<html><body>Out of credits? 402 insufficient_quota — see billing</body></html>',
        },
      });
      const outage = await chat('f/ai/own');
      expect(outage.status).toBe(502);
      expect(outage.body.error.fault).toBe('internal');
    });

    it("an unknown model is the user's on their key and ours on the platform's", async () => {
      openai.reply(UNKNOWN_MODEL);
      const own = await chat('f/ai/own', { model: 'gpt-9-imaginary' });
      expect(own.status).toBe(404);
      expect(own.body.error).toMatchObject({ code: 'model_not_found', fault: 'user' });
      expect(lastSpanFault('chat gpt-9-imaginary')).toBe('user');
      openai.reply(UNKNOWN_MODEL);
      expect((await chat('f/ai/managed', { model: 'gpt-9-imaginary' })).body.error.fault).toBe('internal');
    });

    it('a provider resource the caller cannot read is theirs; their malformed request is theirs', async () => {
      const missing = await chat('f/ai/missing');
      expect(missing.status).toBe(404);
      expect(missing.body.error.fault).toBe('user');
      const malformed = await call('/v1/chat/completions', 'f/ai/own', { messages: [] });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toMatchObject({ param: 'model', fault: 'user' });
    });
  });

  describe('chat completions translated (Gemini behind OpenAI’s shape)', () => {
    it("a stale key of the user's own is theirs, streamed or not, named", async () => {
      for (const stream of [false, true]) {
        const { status, body } = await chat('f/ai/gemini_stale', { model: 'gemini-2.5-flash', stream });
        expect(status).toBe(401);
        expect(body.error.fault).toBe('user');
        expect(body.error.message).toContain('f/ai/gemini_stale');
      }
    });
  });

  describe('embeddings', () => {
    it("a stale key is the user's on their key (named) and ours on the platform's", async () => {
      const before = await failures();
      const own = await embed('f/ai/own_stale');
      expect(own.status).toBe(401);
      expect(own.body.error.fault).toBe('user');
      expect(own.body.error.message).toContain('fix the key of the provider resource f/ai/own_stale');
      expect(lastSpanFault('embeddings text-embedding-3-small')).toBe('user');
      const managed = await embed('f/ai/platform/stale');
      expect(managed.body.error.fault).toBe('internal');
      expect(lastSpanFault('embeddings text-embedding-3-small')).toBe('internal');
      const after = await failures();
      expect(after.get('auth_failed/user')).toBe((before.get('auth_failed/user') ?? 0) + 1);
      expect(after.get('auth_failed/internal')).toBe((before.get('auth_failed/internal') ?? 0) + 1);
    });

    it("an unknown model and a spent account are the user's on their key", async () => {
      openai.failEmbeddings(UNKNOWN_MODEL, QUOTA_EXHAUSTED, QUOTA_EXHAUSTED);
      const unknown = await embed('f/ai/own');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 'model_not_found', fault: 'user' });
      const spent = await embed('f/ai/own');
      expect(spent.status).toBe(429);
      expect(spent.body.error).toMatchObject({ type: 'insufficient_quota', fault: 'user' });
      expect((await embed('f/ai/managed')).body.error.fault).toBe('internal');
    });
  });

  describe('model lists', () => {
    it("a stale key is the user's on their key (named) and ours on the platform's", async () => {
      const own = await call('/v1/models', 'f/ai/own_stale');
      expect(own.status).toBe(401);
      expect(own.body.error.fault).toBe('user');
      expect(own.body.error.message).toContain('f/ai/own_stale');
      const managed = await call('/v1/models', 'f/ai/platform/stale');
      expect(managed.status).toBe(401);
      expect(managed.body.error.fault).toBe('internal');
    });
  });

  describe('the workspace proxy', () => {
    const proxy = '/api/w/main/ai/proxy';

    it("forwarded: a stale key is the user's on their key (named) and ours on the platform's", async () => {
      const own = await chat('f/ai/own_stale', {}, `${proxy}/chat/completions`);
      expect(own.status).toBe(401);
      expect(own.body.error.fault).toBe('user');
      expect(own.body.error.message).toContain('fix the key of the provider resource f/ai/own_stale');
      const managed = await chat('f/ai/platform/stale', {}, `${proxy}/chat/completions`);
      expect(managed.body.error.fault).toBe('internal');
      const embedded = await embed('f/ai/own_stale', `${proxy}/embeddings`);
      expect(embedded.body.error.fault).toBe('user');
    });

    it("forwarded: an unknown model and a spent account are the user's on their key", async () => {
      openai.reply(UNKNOWN_MODEL, QUOTA_EXHAUSTED, QUOTA_EXHAUSTED);
      expect(
        (await chat('f/ai/own', { model: 'gpt-9-imaginary' }, `${proxy}/chat/completions`)).body.error,
      ).toMatchObject({ code: 'model_not_found', fault: 'user' });
      expect((await chat('f/ai/own', {}, `${proxy}/chat/completions`)).body.error).toMatchObject({
        type: 'insufficient_quota',
        fault: 'user',
      });
      expect((await chat('f/ai/managed', {}, `${proxy}/chat/completions`)).body.error.fault).toBe('internal');
    });

    it("translated (Gemini): a stale key of the user's own is theirs", async () => {
      const { status, body } = await chat(
        'f/ai/gemini_stale',
        { model: 'gemini-2.5-flash' },
        `${proxy}/chat/completions`,
      );
      expect(status).toBe(401);
      expect(body.error.fault).toBe('user');
    });
  });
});
