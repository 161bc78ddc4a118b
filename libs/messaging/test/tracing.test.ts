import { defineEvent, defineRequest, defineWork } from '@flowmesh/contracts';
import { HandleRequest, HandleWork, MeshClient, OutboxRelay, writeToOutbox } from '@flowmesh/messaging';
import { waitFor } from '@flowmesh/testing';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MeshFixture } from './support/mesh-fixture.js';
import { OutboxDatabase } from './support/outbox-database.js';

const lookup = defineRequest(
  'catalog.item.get',
  z.object({ id: z.string() }),
  z.object({ id: z.string(), traceId: z.string() }),
);
const index = defineWork('index', z.object({ id: z.string() }));
const itemAdded = defineEvent('evt.item.added', z.object({ id: z.string() }));
const handledIn: Record<string, string> = {};

@Controller()
class CatalogController {
  @HandleRequest(lookup)
  get(@Payload() req: { id: string }) {
    // Business code never touches spans; the test peeks to prove the handler ran inside one.
    return { id: req.id, traceId: trace.getActiveSpan()?.spanContext().traceId ?? 'none' };
  }

  @HandleWork(index, { tags: ['default'], durable: 'indexer' })
  index(@Payload() job: { id: string }) {
    handledIn[job.id] = trace.getActiveSpan()?.spanContext().traceId ?? 'none';
  }
}

describe('W3C trace context crosses the mesh in NATS headers', () => {
  const exporter = new InMemorySpanExporter();
  const tracer = () => trace.getTracer('test');
  let mesh: MeshFixture;
  let client: MeshClient;

  beforeAll(async () => {
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    mesh = await MeshFixture.create('trace');
    await mesh.startApp([CatalogController]);
    client = new MeshClient(await mesh.connect('caller'));
  });

  beforeEach(() => exporter.reset());

  afterAll(async () => {
    await mesh?.dispose();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  const named = (name: string) =>
    waitFor(() => exporter.getFinishedSpans().find((s) => s.name === name), { description: `span ${name}` });
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

  it('a request yields one trace: caller -> send (producer) -> process (consumer)', async () => {
    const subject = mesh.space.subject(lookup.subject);
    const reply = await tracer().startActiveSpan('caller', async (root) => {
      try {
        return await client.request(lookup, { id: 'a1' });
      } finally {
        root.end();
      }
    });

    const root = await named('caller');
    const send = await named(`send ${subject}`);
    const processed = await named(`process ${subject}`);
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(processed.kind).toBe(SpanKind.CONSUMER);
    expect(parentOf(send)).toBe(root.spanContext().spanId);
    expect(parentOf(processed)).toBe(send.spanContext().spanId);
    for (const span of [send, processed]) expect(span.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(reply.traceId).toBe(root.spanContext().traceId);
    expect(send.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': subject,
      'messaging.operation.type': 'send',
    });
    expect(processed.attributes).toMatchObject({
      'messaging.operation.type': 'process',
      'messaging.consumer.group.name': 'test-service',
    });
  });

  it('work published to JetStream is handled in the trace of its publisher', async () => {
    const traceId = await tracer().startActiveSpan('enqueuer', async (root) => {
      await client.enqueueWork(index, 'default', { id: 'w1' });
      root.end();
      return root.spanContext().traceId;
    });
    await waitFor(() => handledIn.w1, { description: 'the work handler' });
    expect(handledIn.w1).toBe(traceId);
    const processed = await named(`process ${mesh.space.subject('work.default.index')}`);
    expect(processed.attributes).toMatchObject({ 'messaging.nats.message.delivery_count': 1 });
  });

  it('an outbox message continues the trace of the transaction that wrote it', async () => {
    const db = await OutboxDatabase.create();
    try {
      const dataSource = await db.dataSource('app');
      const writer = await tracer().startActiveSpan('state change', async (span) => {
        await dataSource.transaction((manager) =>
          writeToOutbox(manager, itemAdded, { id: 'o1' }, { msgId: 'item:o1:added' }),
        );
        span.end();
        return span;
      });
      // Published later, outside any span, by the relay.
      await new OutboxRelay(dataSource, await mesh.connect('relay')).publishBatch();
      const send = await named(`send ${mesh.space.subject(itemAdded.subject)}`);
      expect(send.spanContext().traceId).toBe(writer.spanContext().traceId);
      expect(parentOf(send)).toBe(writer.spanContext().spanId);
    } finally {
      await db.dispose();
    }
  });
});
