import { MeshError } from '@flowmesh/contracts';
import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { traceSend, tracingActive } from './message-tracing.js';

afterEach(() => {
  trace.disable();
  propagation.disable();
});

describe('tracingActive', () => {
  it('is false with nothing registered, so the hot path skips spans and headers', async () => {
    expect(tracingActive()).toBe(false);
    await traceSend('fm.a.b', { operation: 'publish' }, (headers) =>
      Promise.resolve(expect(headers).toBeUndefined()),
    );
  });

  it('is true once a propagator or a tracer provider is registered', () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    expect(tracingActive()).toBe(true);
    propagation.disable();
    trace.setGlobalTracerProvider(new BasicTracerProvider());
    expect(tracingActive()).toBe(true);
  });
});

describe('traceSend', () => {
  it('injects traceparent and records a MeshError code on the producer span', async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const failing = traceSend('fm.registry.x.get', { operation: 'request' }, (headers) => {
      expect(headers?.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      return Promise.reject(new MeshError('NOT_FOUND', 'gone'));
    });
    await expect(failing).rejects.toThrow('gone');
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('send fm.registry.x.get');
    expect(span?.attributes).toMatchObject({
      'error.type': 'NOT_FOUND',
      'messaging.operation.name': 'request',
    });
  });
});
