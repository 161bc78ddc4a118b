export * from './semconv.js';
export * from './gen-ai.semconv.js';
export {
  startTelemetry,
  shutdownTelemetry,
  type Telemetry,
  type TelemetryOptions,
} from './tracing/start-telemetry.js';
export { createTestTracing, type TestTracing, type TestTracingOptions } from './tracing/test-tracing.js';
export { createPropagator } from './tracing/propagator.js';
export { createServiceResource, type ServiceIdentity } from './tracing/service-resource.js';
export { getMeter, instrumentsOnFirstUse } from './metrics/get-meter.js';
export * from './metrics/flowmesh-metrics.js';
export { serveMetrics } from './metrics/prometheus-endpoint.js';
export { createLogger, type Logger, type LoggerOptions, type LogLevel } from './logging/create-logger.js';
export { PinoNestLogger } from './logging/pino-nest.logger.js';
export { REDACTED, SECRET_KEYS, scrubJsonLine, scrubSecretValues } from './logging/secret-scrubber.js';
export { traceContextFields, type TraceContextFields } from './logging/trace-context.mixin.js';
