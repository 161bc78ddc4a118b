import type { Resource } from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';

const DEFAULT_EXPORT_INTERVAL_MS = 60_000;

export interface MeterProviderOptions {
  resource: Resource;
  /** The OTLP/HTTP metrics exporter (`loadOtlpMetricExporter`); without it instruments record into nothing (cheap no-ops). */
  exporter?: PushMetricExporter;
  exportIntervalMs?: number;
  extraReaders?: MetricReader[];
}

export function createMeterProvider(options: MeterProviderOptions): MeterProvider {
  const readers: MetricReader[] = [...(options.extraReaders ?? [])];
  if (options.exporter) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: options.exporter,
        exportIntervalMillis: options.exportIntervalMs ?? DEFAULT_EXPORT_INTERVAL_MS,
      }),
    );
  }
  return new MeterProvider({ resource: options.resource, readers });
}

/**
 * The OTLP/HTTP metrics exporter for `url`, imported only now: the exporter and its
 * protobuf/HTTP dependencies cost a process memory and start-up time it does not need when no
 * endpoint is configured.
 */
export async function loadOtlpMetricExporter(url: string): Promise<PushMetricExporter> {
  const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
  return new OTLPMetricExporter({ url });
}
