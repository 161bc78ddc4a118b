import type { IncomingMessage, ServerResponse } from 'node:http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';

let exporter: PrometheusExporter | undefined;

/**
 * The pull reader behind `/metrics`. It serves on the service's own HTTP port (through
 * `serveMetrics`), so it never starts the exporter's server on 9464.
 */
export function createPrometheusReader(): PrometheusExporter {
  exporter = new PrometheusExporter({ preventServerStart: true });
  return exporter;
}

export function forgetPrometheusReader(): void {
  exporter = undefined;
}

/**
 * Answers a scrape with every metric of the process in the Prometheus text format; 503 when
 * telemetry is off (`OTEL_SDK_DISABLED=true`) or not started.
 */
export function serveMetrics(request: IncomingMessage, response: ServerResponse): void {
  if (!exporter) {
    response.statusCode = 503;
    response.setHeader('content-type', 'text/plain');
    response.end('# metrics are off (OpenTelemetry not started)\n');
    return;
  }
  exporter.getMetricsRequestHandler(request, response);
}
