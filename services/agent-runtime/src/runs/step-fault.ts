import {
  classifyFault,
  FAULT_CLASSES,
  FaultClassSchema,
  MeshError,
  ProviderErrorClassSchema,
  type FaultClass,
} from '@flowmesh/contracts';
import { FLOWMESH_METRICS, getMeter, instrumentsOnFirstUse } from '@flowmesh/telemetry';

/** A failed step's error as users read it (`result.error`): its name, class and whose fault. */
export interface StepError {
  readonly name: string;
  readonly message: string;
  /** The gateway's error class, for a model's failure. */
  readonly class?: string;
  readonly fault?: FaultClass;
}

/**
 * Whose fault a step's error is (`classifyFault`): the gateway's verdict for a model's failure
 * (it knows whose key it used); the user's for a field of their step (`AgentInputError`), their
 * MCP server (`McpToolError`), their model not answering in their `output_schema`
 * (`AgentOutputError`) or within their `max_iterations`, their runs on one memory
 * (`MemoryInUse`, `multitask_strategy`); ours for anything else.
 */
export function faultOf(error: Pick<StepError, 'name' | 'class' | 'fault'>): FaultClass {
  if (error.fault) return error.fault;
  const providerClass = ProviderErrorClassSchema.safeParse(error.class);
  if (providerClass.success)
    return classifyFault({ source: 'provider', class: providerClass.data, key: undefined });
  switch (error.name) {
    case 'AgentInputError':
    case 'AgentOutputError':
    case 'MaxIterationsReached':
    case 'MemoryInUse':
      return classifyFault({ source: 'step', kind: 'input' });
    case 'McpToolError':
      return classifyFault({ source: 'step', kind: 'tool' });
    default:
      return classifyFault({ source: 'step', kind: 'bug' });
  }
}

/** The error with its fault class beside its name and class. */
export function withFault<T extends StepError>(error: T): T & { fault: FaultClass } {
  return { ...error, fault: faultOf(error) };
}

/**
 * The fault a thrown error says of itself: a mesh error's `details.fault` (the gateway's, for a
 * provider resource it could not read), else by its code and the entity it names.
 */
export function thrownFault(error: unknown): FaultClass | undefined {
  if (!(error instanceof MeshError)) return undefined;
  const details = (error.details ?? {}) as { fault?: unknown; entity?: unknown };
  const said = FaultClassSchema.safeParse(details.fault);
  if (said.success) return said.data;
  if (error.code !== 'NOT_FOUND') return undefined;
  return classifyFault({
    source: 'mesh',
    code: error.code,
    ...(typeof details.entity === 'string' ? { entity: details.entity } : {}),
  });
}

const instruments = instrumentsOnFirstUse(() => ({
  failures: getMeter('flowmesh.agent-runtime').createCounter(FLOWMESH_METRICS.agentStepFailures.name, {
    unit: FLOWMESH_METRICS.agentStepFailures.unit,
    description: 'Failed agent and decision steps, by step type, error class and fault (internal pages)',
  }),
}));

/**
 * Keeps both fault series of a step type at zero (a rate reads 0, not nothing, before the first
 * failure): called as each step starts.
 */
export function countStepFailures(stepType: string): void {
  for (const fault of FAULT_CLASSES) instruments().failures.add(0, { step_type: stepType, fault });
}

/** Counts a failed step in `flowmesh.agent.step_failures{step_type,error_class,fault}`. */
export function recordStepFailure(stepType: string, error: StepError): void {
  instruments().failures.add(1, {
    step_type: stepType,
    error_class: error.class ?? error.name,
    fault: faultOf(error),
  });
}
