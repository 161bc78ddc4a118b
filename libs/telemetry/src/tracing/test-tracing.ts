import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { enableInstrumentations } from './instrumentations.js';
import { createPropagator } from './propagator.js';
import { createServiceResource } from './service-resource.js';

export interface TestTracingOptions {
  serviceName?: string;
  /** Also patch `http` and `pg` as `startTelemetry` does (before they are first required). */
  instrument?: boolean;
}

export interface TestTracing {
  readonly exporter: InMemorySpanExporter;
  /** Finished spans, oldest first. */
  spans(): ReadableSpan[];
  reset(): void;
  shutdown(): Promise<void>;
}

/**
 * A real tracer provider exporting synchronously into memory, registered globally with the
 * same context manager and propagator as production, so a test can assert on parentage and
 * on what crossed a process-internal hop.
 */
export function createTestTracing(options: TestTracingOptions = {}): TestTracing {
  // Replace whatever an earlier test registered: the API keeps the first provider otherwise.
  trace.disable();
  propagation.disable();
  context.disable();

  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: createServiceResource({ serviceName: options.serviceName ?? 'test', serviceVersion: '0.0.0' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  provider.register({
    contextManager: new AsyncLocalStorageContextManager(),
    propagator: createPropagator(),
  });

  const disableInstrumentations = options.instrument
    ? enableInstrumentations({ tracerProvider: provider })
    : () => {};

  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    shutdown: async () => {
      disableInstrumentations();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
