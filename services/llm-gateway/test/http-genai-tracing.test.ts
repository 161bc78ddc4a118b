import { startFakeOpenAI, type FakeOpenAI } from '@flowmesh/testing';
import { createTestTracing, type TestTracing } from '@flowmesh/telemetry';
import { metrics, SpanKind } from '@opentelemetry/api';
import { MeterProvider, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';
import { OnDemandReader } from './support/on-demand-reader.js';

const SECRET = 'sk-trace-ffffffffffffffffffffffffffff';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

describe("llm-gateway HTTP: GenAI spans continue the caller's trace and hold no credential", () => {
  let tracing: TestTracing;
  let cast: GatewayCast;
  let fake: FakeOpenAI;
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });

  beforeAll(async () => {
    tracing = createTestTracing({ serviceName: 'llm-gateway' });
    metrics.setGlobalMeterProvider(meterProvider);
    fake = await startFakeOpenAI({ apiKey: SECRET });
    cast = await startGatewayCast();
    await cast.providerResource('f/ai/openai', 'openai', { base_url: `${fake.url}/v1` }, SECRET);
  });

  afterAll(async () => {
    await cast?.stop();
    await fake?.close();
    await tracing?.shutdown();
    await meterProvider.shutdown();
    metrics.disable();
  });

  it('records one chat span per call with the GenAI attributes, as a child of the incoming traceparent', async () => {
    fake.reply({ text: 'hi', usage: { prompt_tokens: 30, completion_tokens: 5, cached_tokens: 12 } });
    const response = await fetch(`${cast.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cast.reader.token}`,
        'content-type': 'application/json',
        traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01`,
        ...cast.headers('f/ai/openai'),
      },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        max_tokens: 50,
        temperature: 0.5,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(response.status).toBe(200);
    await response.text();

    const spans = tracing.spans().filter((span) => span.name === 'chat gpt-4o-mini');
    expect(spans).toHaveLength(1);
    const [span] = spans;
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    expect(span?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.max_tokens': 50,
      'gen_ai.request.temperature': 0.5,
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.usage.cache_read.input_tokens': 12,
      'flowmesh.gen_ai.provider_resource': 'f/ai/openai',
    });
    const everything = JSON.stringify(
      tracing.spans().map((recorded) => [recorded.name, recorded.attributes, recorded.events]),
    );
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(cast.reader.token);
  });

  it('records gen_ai.client.token.usage per token type and gen_ai.client.operation.duration', async () => {
    const { resourceMetrics } = await reader.collect();
    const all = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    const usage = all.find((metric) => metric.descriptor.name === 'gen_ai.client.token.usage') as
      HistogramMetricData | undefined;
    expect(usage?.descriptor.unit).toBe('{token}');
    const byType = Object.fromEntries(
      (usage?.dataPoints ?? []).map((point) => [
        String(point.attributes['gen_ai.token.type']),
        point.value.sum,
      ]),
    );
    expect(byType).toEqual({ input: 30, output: 5 });
    expect(usage?.dataPoints[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
    });
    const duration = all.find((metric) => metric.descriptor.name === 'gen_ai.client.operation.duration') as
      HistogramMetricData | undefined;
    expect(duration?.descriptor.unit).toBe('s');
    expect(duration?.dataPoints[0]?.value.count).toBe(1);
  });

  it('marks a failed call with error.type and an error status', async () => {
    tracing.reset();
    fake.reply({
      error: {
        status: 400,
        message: "This model's maximum context length is 128000 tokens.",
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
      },
    });
    const response = await fetch(`${cast.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cast.reader.token}`,
        'content-type': 'application/json',
        ...cast.headers('f/ai/openai'),
      },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'a very long prompt' }],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'context_length_exceeded' } });
    const [span] = tracing.spans().filter((recorded) => recorded.name === 'chat gpt-4o-mini');
    expect(span?.attributes['error.type']).toBe('context_window_exceeded');
    expect(span?.status.code).toBe(2);
  });
});
