import type { FlowStatus } from '@flowmesh/contracts';
import type { StepEvent } from '@flowmesh/contracts/grpc';
import type { WatchOffset } from './job-watch-offset.js';

type ModuleState = StepEvent['state'];

/**
 * How far a module state is: 0 not started (waiting for the steps before it, or for the
 * approvals a suspend asks before it may run), 1 started (running, or queued for a worker),
 * 2 finished.
 */
function phaseOf(state: ModuleState): number {
  if (state === 'Success' || state === 'Failure') return 2;
  return state === 'InProgress' || state === 'WaitingForExecutor' ? 1 : 0;
}

/**
 * The step events a flow's status holds that `offset` has not told yet, in step order, a step's
 * start before its finish (a step seen only once it finished is told started, then finished).
 * Each event is handed with the offset advanced past it.
 */
export function newStepEvents(
  status: FlowStatus | null,
  offset: WatchOffset,
  emit: (kind: 'step_started' | 'step_finished', event: StepEvent) => void,
): void {
  for (const [index, module] of (status?.modules ?? []).entries()) {
    const phase = phaseOf(module.type);
    const event = (state: ModuleState): StepEvent => ({
      step_id: module.id ?? String(index),
      index,
      state,
      ...(module.job === undefined ? {} : { job: module.job }),
    });
    while ((offset.steps[index] ?? 0) < phase) {
      for (let i = offset.steps.length; i < index; i++) offset.steps[i] = 0;
      const told = (offset.steps[index] ?? 0) + 1;
      offset.steps[index] = told;
      if (told === 2) emit('step_finished', event(module.type));
      // A step first seen finished was running before: its start says so.
      else emit('step_started', event(phase === 1 ? module.type : 'InProgress'));
    }
  }
}
