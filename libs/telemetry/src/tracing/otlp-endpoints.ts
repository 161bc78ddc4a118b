/** Where each signal goes, by the OTLP exporter spec's variables; `undefined` means "do not export". */
export interface OtlpEndpoints {
  traces?: string;
  metrics?: string;
}

export function resolveOtlpEndpoints(env: NodeJS.ProcessEnv): OtlpEndpoints {
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT)?.replace(/\/+$/, '');
  return {
    traces: nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? (base && `${base}/v1/traces`),
    metrics: nonEmpty(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) ?? (base && `${base}/v1/metrics`),
  };
}

export function isSdkDisabled(env: NodeJS.ProcessEnv): boolean {
  return env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
