import { FAULT_CLASSES, type FaultClass } from '@flowmesh/contracts';
import {
  ADDED_LATENCY_BUCKETS_S,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOKEN_TYPE,
  FLOWMESH_METRICS,
  getMeter,
  instrumentsOnFirstUse,
} from '@flowmesh/telemetry';

/** The gateway's own metrics (the GenAI histograms stay in GenAiTelemetry). */
const gatewayInstruments = instrumentsOnFirstUse(() => {
  const meter = getMeter('flowmesh.llm-gateway');
  return {
    tokens: meter.createCounter(FLOWMESH_METRICS.llmTokens.name, {
      unit: FLOWMESH_METRICS.llmTokens.unit,
      description: 'Tokens of provider calls, by provider, model and token type',
    }),
    cost: meter.createCounter(FLOWMESH_METRICS.llmCost.name, {
      unit: FLOWMESH_METRICS.llmCost.unit,
      description: 'Estimated cost of provider calls in US dollars (models with a known list price)',
    }),
    failures: meter.createCounter(FLOWMESH_METRICS.llmCallFailures.name, {
      unit: FLOWMESH_METRICS.llmCallFailures.unit,
      description:
        'Failed provider calls, by provider, error class and fault (user: theirs; internal: ours, pages)',
    }),
    addedLatency: meter.createHistogram(FLOWMESH_METRICS.gatewayAddedLatency.name, {
      unit: FLOWMESH_METRICS.gatewayAddedLatency.unit,
      description:
        'Time a call spent in the gateway before its request left for the provider (auth, credentials, translation)',
      advice: { explicitBucketBoundaries: ADDED_LATENCY_BUCKETS_S },
    }),
  };
});

/** A call's tokens, and its cost when the model's price is known (`usd`, from the price table). */
export function recordTokenUsage(
  providerName: string,
  model: string,
  usage: { readonly inputTokens: number; readonly outputTokens: number },
  usd: number | undefined,
): void {
  const { tokens, cost } = gatewayInstruments();
  const base = { [ATTR_GEN_AI_PROVIDER_NAME]: providerName, [ATTR_GEN_AI_REQUEST_MODEL]: model };
  tokens.add(usage.inputTokens, { ...base, [ATTR_GEN_AI_TOKEN_TYPE]: 'input' });
  tokens.add(usage.outputTokens, { ...base, [ATTR_GEN_AI_TOKEN_TYPE]: 'output' });
  if (usd !== undefined) cost.add(usd, base);
}

/**
 * A call's end in `flowmesh.llm.call_failures`: a failure counts 1 under its error class and whose
 * fault it is (alerts page on `fault="internal"` only); any call keeps both fault series of its
 * provider at zero, so a rate reads 0 rather than nothing before the first failure.
 */
export function recordCallEnd(
  providerName: string,
  failure?: { errorClass: string; fault: FaultClass },
): void {
  const { failures } = gatewayInstruments();
  const provider = { [ATTR_GEN_AI_PROVIDER_NAME]: providerName };
  for (const fault of FAULT_CLASSES) failures.add(0, { ...provider, fault });
  if (failure) failures.add(1, { ...provider, error_class: failure.errorClass, fault: failure.fault });
}

/** `since`: `performance.now()` when the request reached the gateway. */
export function recordAddedLatency(since: number, source: string): void {
  gatewayInstruments().addedLatency.record((performance.now() - since) / 1000, { source });
}
