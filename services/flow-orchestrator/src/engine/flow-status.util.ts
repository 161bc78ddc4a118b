import type { FlowModule, FlowStatus, FlowStatusModule, FlowValue } from '@flowmesh/contracts';

/** The status a flow starts with: every module waiting, the failure module too. */
export function initialFlowStatus(value: FlowValue): FlowStatus {
  const status: FlowStatus = {
    step: 0,
    modules: value.modules.map((module) => ({ type: 'WaitingForPriorSteps', id: module.id })),
    failure_module: { type: 'WaitingForPriorSteps', id: value.failure_module?.id ?? 'failure' },
  };
  if (value.preprocessor_module) {
    status.preprocessor_module = { type: 'WaitingForPriorSteps', id: value.preprocessor_module.id };
  }
  return status;
}

/** A copy of a module status keeping only the spec's fields that are set. */
export function moduleStatus(fields: FlowStatusModule): FlowStatusModule {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as FlowStatusModule;
}

export function isDone(status: FlowStatusModule): boolean {
  return status.type === 'Success' || status.type === 'Failure';
}

/** `value.modules[2]`, or the special modules' own paths. */
export function modulePath(
  base: string,
  module: FlowModule,
  index: number | 'failure' | 'preprocessor',
): string {
  if (index === 'failure') return `${base}failure_module`;
  if (index === 'preprocessor') return `${base}preprocessor_module`;
  return `${base}modules[${index}]`;
}

export function structuredCloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
