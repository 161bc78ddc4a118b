import {
  isTerminalJobStatus,
  MeshError,
  parseOpenFlow,
  type Actor,
  type CallerIdentity,
  type Job,
  type RunFlowRequest,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { DEFAULT_FLOW_TAG } from '../engine/child-flows.js';
import { restartedFlowStatus, type RestartPoint } from '../engine/flow-restart.js';
import { RunFlowUseCase } from './run-flow.use-case.js';

/**
 * Restarts an ended flow run from one of its steps, as Windmill's `restart_flow` does: a new job
 * runs the flow value the earlier run ran, with its args, as the caller; the steps before the
 * restart point are not run again (the new job's status holds the earlier run's module statuses,
 * so their results are read from the earlier jobs), and `flow_status.restarted_from` names the
 * run and the step. The caller has been allowed to read the earlier run (`earlier`); running the
 * flow again is checked as any run of it is (a saved flow is read as the caller).
 */
@Injectable()
export class RestartFlowUseCase {
  constructor(private readonly runs: RunFlowUseCase) {}

  async restart(
    earlier: Job,
    point: Omit<RestartPoint, 'flowJobId'>,
    caller: { actor: Actor; identity: CallerIdentity },
    jobId?: string,
  ): Promise<string> {
    const id = earlier.id;
    if (
      (earlier.kind !== 'flow' && earlier.kind !== 'flowpreview') ||
      !earlier.raw_flow ||
      !earlier.flow_status
    )
      throw new MeshError(
        'VALIDATION_FAILED',
        `job ${id} is a ${earlier.kind} job: only a flow run can be restarted`,
        {
          id,
          kind: earlier.kind,
        },
      );
    if (earlier.parent_job !== null)
      throw new MeshError(
        'VALIDATION_FAILED',
        `job ${id} runs inside flow ${earlier.root_job}: restart that run (${earlier.root_job}) instead`,
        { id, root_job: earlier.root_job },
      );
    if (!isTerminalJobStatus(earlier.status))
      throw new MeshError(
        'CONFLICT',
        `job ${id} has not ended (it is ${earlier.status}): restart it once it ends`,
        {
          id,
          status: earlier.status,
        },
      );
    const parsed = parseOpenFlow(earlier.raw_flow);
    if (!parsed.ok)
      throw new MeshError('VALIDATION_FAILED', `the flow value of job ${id} no longer parses`, { id });
    const status = restartedFlowStatus(parsed.value, earlier.flow_status, { ...point, flowJobId: id });
    const req: RunFlowRequest = {
      actor: caller.actor,
      workspace: earlier.workspace,
      args: earlier.args,
      ...(jobId === undefined ? {} : { job_id: jobId }),
      // A preview runs its value again; a saved flow is read (as the caller) to check they may run it.
      ...(earlier.kind === 'flowpreview' || earlier.path === null
        ? { value: earlier.raw_flow, ...(earlier.path === null ? {} : { path: earlier.path }) }
        : { path: earlier.path }),
      ...(earlier.tag === DEFAULT_FLOW_TAG ? {} : { tag: earlier.tag }),
      ...(earlier.priority === null ? {} : { priority: earlier.priority }),
    };
    return this.runs.run(req, caller.identity, { raw: earlier.raw_flow, status });
  }
}
