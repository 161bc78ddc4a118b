import { describe, expect, it } from 'vitest';
import { isSdkDisabled, resolveOtlpEndpoints } from './otlp-endpoints.js';

describe('resolveOtlpEndpoints', () => {
  it('exports nothing when no endpoint is set', () => {
    expect(resolveOtlpEndpoints({})).toEqual({ traces: undefined, metrics: undefined });
    expect(resolveOtlpEndpoints({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toEqual({
      traces: undefined,
      metrics: undefined,
    });
  });

  it('appends the signal path to the base endpoint', () => {
    expect(resolveOtlpEndpoints({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      traces: 'http://collector:4318/v1/traces',
      metrics: 'http://collector:4318/v1/metrics',
    });
  });

  it('prefers a signal-specific endpoint, used as given', () => {
    const endpoints = resolveOtlpEndpoints({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/custom',
    });
    expect(endpoints.traces).toBe('http://tempo:4318/custom');
    expect(endpoints.metrics).toBe('http://collector:4318/v1/metrics');
  });
});

describe('isSdkDisabled', () => {
  it('reads OTEL_SDK_DISABLED as the spec says (only "true", any case)', () => {
    expect(isSdkDisabled({ OTEL_SDK_DISABLED: 'TRUE' })).toBe(true);
    expect(isSdkDisabled({ OTEL_SDK_DISABLED: '1' })).toBe(false);
    expect(isSdkDisabled({})).toBe(false);
  });
});
