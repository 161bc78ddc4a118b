import {
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  FLOWMESH_METRICS,
  genAiProviderName,
  getMeter,
  instrumentsOnFirstUse,
} from '@flowmesh/telemetry';

/**
 * The agent loop's counters: model calls of the loop (`flowmesh.agent.iterations`, by provider and
 * model) and history compactions (`flowmesh.agent.compactions`, by outcome). The loop and the
 * compactor are plain functions and classes outside Nest, hence module-level instruments.
 */
const agentInstruments = instrumentsOnFirstUse(() => {
  const meter = getMeter('flowmesh.agent-runtime');
  return {
    iterations: meter.createCounter(FLOWMESH_METRICS.agentIterations.name, {
      unit: FLOWMESH_METRICS.agentIterations.unit,
      description: 'Turns of the agent loop (one model call each)',
    }),
    compactions: meter.createCounter(FLOWMESH_METRICS.agentCompactions.name, {
      unit: FLOWMESH_METRICS.agentCompactions.unit,
      description: 'History compactions (older messages summarized), by outcome',
    }),
  };
});

export function recordAgentIteration(providerKind: string, model: string): void {
  agentInstruments().iterations.add(1, {
    [ATTR_GEN_AI_PROVIDER_NAME]: genAiProviderName(providerKind),
    [ATTR_GEN_AI_REQUEST_MODEL]: model,
  });
}

export function recordCompaction(outcome: 'summarized' | 'failed'): void {
  agentInstruments().compactions.add(1, { outcome });
}
