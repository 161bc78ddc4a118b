import {
  context,
  diag,
  DiagConsoleLogger,
  DiagLogLevel,
  metrics,
  propagation,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createMeterProvider, loadOtlpMetricExporter } from '../metrics/meter-provider.js';
import { createPrometheusReader, forgetPrometheusReader } from '../metrics/prometheus-endpoint.js';
import { enableInstrumentations } from './instrumentations.js';
import { isSdkDisabled, resolveOtlpEndpoints } from './otlp-endpoints.js';
import { createPropagator } from './propagator.js';
import { createServiceResource, type ServiceIdentity } from './service-resource.js';

export interface TelemetryOptions extends ServiceIdentity {
  /**
   * The standard `OTEL_*` variables. Telemetry starts before the service's configuration is
   * parsed (it must patch modules before they load), so it reads them itself; defaults to
   * `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** Added to the exporting processor; tests pass an in-memory exporter here. */
  spanProcessors?: SpanProcessor[];
  metricReaders?: MetricReader[];
}

export interface Telemetry {
  /** False when `OTEL_SDK_DISABLED=true`: nothing was registered. */
  readonly enabled: boolean;
  readonly exportsTraces: boolean;
  readonly exportsMetrics: boolean;
  /** Flushes pending spans and metrics, then unregisters everything. */
  shutdown(): Promise<void>;
}

let active: Telemetry | undefined;
/** A start under way (exporters being imported): a second caller shares it. */
let starting: Promise<Telemetry> | undefined;

/**
 * Registers the tracer provider, meter provider, W3C propagator, AsyncLocalStorage context
 * and the HTTP/pg instrumentations. Call it before the app's modules are imported (see the
 * README). A second call returns the running instance.
 */
export function startTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  if (active) return Promise.resolve(active);
  starting ??= startOnce(options).finally(() => {
    starting = undefined;
  });
  return starting;
}

async function startOnce(options: TelemetryOptions): Promise<Telemetry> {
  const env = options.env ?? process.env;
  if (isSdkDisabled(env)) {
    active = {
      enabled: false,
      exportsTraces: false,
      exportsMetrics: false,
      shutdown: () => {
        clearActive();
        return Promise.resolve();
      },
    };
    return active;
  }
  configureDiagnostics(env);

  const endpoints = resolveOtlpEndpoints(env);
  // The OTLP exporters (and their protobuf/HTTP dependencies) load only when an endpoint is set,
  // and before anything is registered, so what follows stays synchronous as before.
  const [traceExporter, metricExporter] = await Promise.all([
    endpoints.traces ? loadOtlpTraceExporter(endpoints.traces) : undefined,
    endpoints.metrics ? loadOtlpMetricExporter(endpoints.metrics) : undefined,
  ]);
  const resource = createServiceResource(options);
  const spanProcessors: SpanProcessor[] = [...(options.spanProcessors ?? [])];
  if (traceExporter) spanProcessors.push(new BatchSpanProcessor(traceExporter));

  // Registered even without an exporter: spans still get ids, so trace context flows into
  // logs and across NATS hops while nothing leaves the process.
  const tracerProvider = new NodeTracerProvider({ resource, spanProcessors });
  tracerProvider.register({
    contextManager: new AsyncLocalStorageContextManager(),
    propagator: createPropagator(),
  });

  const meterProvider = createMeterProvider({
    resource,
    ...(metricExporter ? { exporter: metricExporter } : {}),
    exportIntervalMs: parsePositiveInt(env.OTEL_METRIC_EXPORT_INTERVAL),
    // Always: every process answers Prometheus scrapes at /metrics (libs/bootstrap serves it).
    extraReaders: [createPrometheusReader(), ...(options.metricReaders ?? [])],
  });
  metrics.setGlobalMeterProvider(meterProvider);

  const disableInstrumentations = enableInstrumentations({ tracerProvider, meterProvider });

  active = {
    enabled: true,
    exportsTraces: Boolean(endpoints.traces),
    exportsMetrics: Boolean(endpoints.metrics),
    shutdown: async () => {
      clearActive();
      disableInstrumentations();
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
  return active;
}

/** Flushes and stops what `startTelemetry` started; a no-op when nothing runs. */
export async function shutdownTelemetry(): Promise<void> {
  await active?.shutdown();
}

async function loadOtlpTraceExporter(url: string): Promise<SpanExporter> {
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  return new OTLPTraceExporter({ url });
}

function clearActive(): void {
  active = undefined;
  forgetPrometheusReader();
}

function configureDiagnostics(env: NodeJS.ProcessEnv): void {
  const level = env.OTEL_LOG_LEVEL?.trim().toUpperCase();
  if (!level) return;
  const diagLevel = DiagLogLevel[level as keyof typeof DiagLogLevel];
  if (diagLevel !== undefined) diag.setLogger(new DiagConsoleLogger(), { logLevel: diagLevel });
}

function parsePositiveInt(value: string | undefined): number | undefined {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : undefined;
}
