import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import type { Resource } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader } from '@opentelemetry/sdk-metrics';

const DEFAULT_EXPORT_INTERVAL_MS = 60_000;

export interface MeterProviderOptions {
  resource: Resource;
  /** OTLP/HTTP metrics URL; without it instruments record into nothing (cheap no-ops). */
  endpoint?: string;
  exportIntervalMs?: number;
  extraReaders?: MetricReader[];
}

export function createMeterProvider(options: MeterProviderOptions): MeterProvider {
  const readers: MetricReader[] = [...(options.extraReaders ?? [])];
  if (options.endpoint) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: options.endpoint }),
        exportIntervalMillis: options.exportIntervalMs ?? DEFAULT_EXPORT_INTERVAL_MS,
      }),
    );
  }
  return new MeterProvider({ resource: options.resource, readers });
}
