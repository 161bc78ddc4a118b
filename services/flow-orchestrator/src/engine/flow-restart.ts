import { MeshError, type FlowStatus, type FlowStatusModule, type FlowValue } from '@flowmesh/contracts';

/** Where a restarted run starts, as Windmill's `RestartedFrom` names it. */
export interface RestartPoint {
  readonly flowJobId: string;
  readonly stepId: string;
  readonly branchOrIterationN?: number;
}

/**
 * The status a run restarted from `point.stepId` starts with (Windmill's
 * `restarted_flows_resolution`): the modules before the step as the earlier run ended them
 * (each must have succeeded; their jobs, hence their results, are the earlier run's), the step and
 * those after it waiting, `step` at the step. With `branchOrIterationN` n > 0 the step must be a
 * sequential for loop or branchall: its first n iterations or branches are kept and it goes on
 * from the next. The failure module and retries start afresh; `restarted_from` names the point.
 */
export function restartedFlowStatus(value: FlowValue, earlier: FlowStatus, point: RestartPoint): FlowStatus {
  const { stepId, branchOrIterationN: n } = point;
  const index = value.modules.findIndex((module) => module.id === stepId);
  if (index < 0) {
    const ids = value.modules.map((module) => module.id);
    throw new MeshError(
      'VALIDATION_FAILED',
      `step_id: the flow of job ${point.flowJobId} has no top-level step "${stepId}" (its steps: ${ids.join(', ')})`,
      { step_id: stepId, steps: ids },
    );
  }
  const modules: FlowStatusModule[] = [];
  for (const [position, module] of value.modules.entries()) {
    const before = earlier.modules[position];
    if (position < index) {
      if (before?.type !== 'Success' || before.id !== module.id)
        throw new MeshError(
          'VALIDATION_FAILED',
          `step_id: job ${point.flowJobId} cannot be restarted from "${stepId}": step "${module.id}" before it did not succeed (it is ${before?.type ?? 'missing'})`,
          { step_id: stepId, failed_step: module.id },
        );
      modules.push(before);
    } else if (position === index && n !== undefined && n > 0) {
      modules.push(partialModule(value, before, point, n));
    } else {
      modules.push({ type: 'WaitingForPriorSteps', id: module.id });
    }
  }
  const status: FlowStatus = {
    step: index,
    modules,
    failure_module: { type: 'WaitingForPriorSteps', id: value.failure_module?.id ?? 'failure' },
    restarted_from: {
      flow_job_id: point.flowJobId,
      step_id: stepId,
      branch_or_iteration_n: n ?? null,
    },
  };
  if (earlier.memory_id !== undefined) status.memory_id = earlier.memory_id;
  return status;
}

/** A sequential loop or branchall whose first `n` iterations or branches are the earlier run's. */
function partialModule(
  value: FlowValue,
  before: FlowStatusModule | undefined,
  point: RestartPoint,
  n: number,
): FlowStatusModule {
  const module = value.modules.find((candidate) => candidate.id === point.stepId)!;
  const inner = module.value;
  const kind =
    inner.type === 'forloopflow' ? 'iterations' : inner.type === 'branchall' ? 'branches' : undefined;
  const refuse = (reason: string) =>
    new MeshError(
      'VALIDATION_FAILED',
      `branch_or_iteration_n: step "${point.stepId}" cannot be restarted at ${n}: ${reason}`,
      { step_id: point.stepId, branch_or_iteration_n: n },
    );
  if (!kind) throw refuse(`it is a ${inner.type} step, not a for loop or a branchall`);
  if ((inner as { parallel?: boolean }).parallel) throw refuse(`its ${kind} run in parallel`);
  if ((inner as { squash?: boolean }).squash) throw refuse('its iterations ran in memory (squash)');
  const jobs = before?.flow_jobs ?? [];
  if (jobs.length <= n) throw refuse(`the earlier run started only ${jobs.length} ${kind}`);
  const successes = before?.flow_jobs_success ?? [];
  const failed = successes.slice(0, n).findIndex((success) => !success);
  if (failed >= 0)
    throw refuse(`${kind === 'iterations' ? 'iteration' : 'branch'} ${failed} did not succeed`);
  const kept = jobs.slice(0, n);
  const status: FlowStatusModule = {
    type: 'InProgress',
    id: point.stepId,
    flow_jobs: kept,
    flow_jobs_success: successes.slice(0, n),
  };
  if (kind === 'iterations') {
    status.iterator = { ...before!.iterator, index: n - 1 };
  } else {
    status.branchall = { branch: n - 1, len: (inner as { branches: unknown[] }).branches.length };
  }
  if (before?.flow_jobs_duration) {
    status.flow_jobs_duration = {
      started_at: before.flow_jobs_duration.started_at?.slice(0, n),
      duration_ms: before.flow_jobs_duration.duration_ms?.slice(0, n),
    };
  }
  return status;
}
