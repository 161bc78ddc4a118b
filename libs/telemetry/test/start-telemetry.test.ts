import type { request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { propagation, context, trace, SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { getMeter, shutdownTelemetry, startTelemetry } from '../src/index.js';
// Not the package's index: it loads `pg` before the instrumentation under test is registered.
import { FakeOtlpCollector } from '@flowmesh/testing/otlp-collector';

const identity = { serviceName: 'telemetry-test', serviceVersion: '1.2.3' };
const OTLP_DEFAULT_PORT = 4318;

afterEach(async () => {
  await shutdownTelemetry();
});

describe('startTelemetry', () => {
  it('without an endpoint gives spans real ids, propagates them, and exports nothing', async () => {
    // Listen where an SDK falling back to its default endpoint would send; if the port is
    // taken on this machine the flags below still pin the behaviour.
    const collector = new FakeOtlpCollector();
    const listening = await collector.listen(OTLP_DEFAULT_PORT).then(
      () => true,
      () => false,
    );
    try {
      const telemetry = await startTelemetry({ ...identity, env: {} });
      expect(telemetry).toMatchObject({ enabled: true, exportsTraces: false, exportsMetrics: false });

      const span = trace.getTracer('test').startSpan('work');
      const carrier: Record<string, string> = {};
      propagation.inject(trace.setSpan(context.active(), span), carrier);
      span.end();
      getMeter('test').createCounter('jobs').add(1);

      expect(span.isRecording()).toBe(false); // ended
      expect(span.spanContext().traceId).not.toMatch(/^0+$/);
      expect(carrier.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);

      await shutdownTelemetry();
      if (listening) expect(collector.received).toEqual([]);
    } finally {
      await collector.close();
    }
  });

  it('with OTEL_EXPORTER_OTLP_ENDPOINT exports spans and metrics over OTLP/HTTP, flushed at shutdown', async () => {
    const collector = new FakeOtlpCollector();
    const endpoint = await collector.listen();
    try {
      const telemetry = await startTelemetry({ ...identity, env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
      expect(telemetry).toMatchObject({ exportsTraces: true, exportsMetrics: true });

      trace.getTracer('test').startSpan('exported-span').end();
      getMeter('test').createCounter('flowmesh.test.jobs').add(3);
      await shutdownTelemetry();

      const traces = collector.received.filter((r) => r.path === '/v1/traces');
      const metrics = collector.received.filter((r) => r.path === '/v1/metrics');
      expect(traces.map((r) => r.body).join()).toContain('exported-span');
      expect(traces.map((r) => r.body).join()).toContain('telemetry-test');
      expect(metrics.map((r) => r.body).join()).toContain('flowmesh.test.jobs');
    } finally {
      await collector.close();
    }
  });

  it('does nothing when OTEL_SDK_DISABLED=true', async () => {
    const telemetry = await startTelemetry({ ...identity, env: { OTEL_SDK_DISABLED: 'true' } });
    expect(telemetry.enabled).toBe(false);
    const span = trace.getTracer('test').startSpan('ignored');
    expect(span.isRecording()).toBe(false);
    span.end();
  });

  it('records an HTTP server span, an HTTP client span and pg query spans in one trace', async () => {
    const exporter = new InMemorySpanExporter();
    await startTelemetry({ ...identity, env: {}, spanProcessors: [new SimpleSpanProcessor(exporter)] });
    // Loaded after the instrumentation is registered, as services load their app module:
    // an ESM binding of `node:http` taken before `startTelemetry` stays unpatched.
    const { createServer, request } = await import('node:http');
    const { default: pg } = await import('pg');

    const server = createServer((_request, response) => {
      void (async () => {
        const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await client.connect();
        try {
          const result = await client.query<{ answer: number }>('SELECT 41 + 1 AS answer');
          response.end(String(result.rows[0]?.answer));
        } finally {
          await client.end();
        }
      })().catch((error: unknown) => response.writeHead(500).end(String(error)));
    });
    const port = await listen(server);
    try {
      // A webhook's sender may carry its token in the query: it must not reach the spans.
      const body = await get(request, `http://127.0.0.1:${port}/answer?token=fm_secret_in_url&n=1`);
      expect(body).toBe('42');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }

    const spans = exporter.getFinishedSpans();
    const serverSpan = spans.find((s) => s.kind === SpanKind.SERVER);
    const clientSpan = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'GET');
    const querySpan = spans.find((s) => s.name.startsWith('pg.query'));
    expect(serverSpan, spans.map((s) => s.name).join()).toBeDefined();
    expect(clientSpan).toBeDefined();
    expect(querySpan, spans.map((s) => s.name).join()).toBeDefined();
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
    expect(querySpan?.spanContext().traceId).toBe(serverSpan?.spanContext().traceId);
    expect(querySpan?.parentSpanContext?.spanId).toBe(serverSpan?.spanContext().spanId);
    expect(querySpan?.attributes['db.system.name'] ?? querySpan?.attributes['db.system']).toBe('postgresql');
    const attributes = JSON.stringify(spans.map((s) => s.attributes));
    expect(attributes).not.toContain('fm_secret_in_url');
    expect(serverSpan?.attributes['url.query']).toBe('token=REDACTED&n=1');
  });
});

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function get(request: typeof httpRequest, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const clientRequest = request(url, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(body));
    });
    clientRequest.on('error', reject);
    clientRequest.end();
  });
}
