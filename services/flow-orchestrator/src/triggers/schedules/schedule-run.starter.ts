import type { TriggerRef } from '@flowmesh/contracts';
import type { CallerIdentity } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { RunFlowUseCase } from '../../jobs/run-flow.use-case.js';
import { RunScriptUseCase } from '../../jobs/run-script.use-case.js';
import { OwnerTokens } from '../owner-tokens.js';
import { scheduleTokenLabel } from './schedules-api.service.js';

/** The schedule a run is started for, and its owner (its last editor). */
export interface RunOwner {
  readonly workspace_id: string;
  readonly schedule_path: string;
  /** The owner's API token, sealed for the schedule. */
  readonly owner_token: string;
  readonly edited_by: string;
  readonly email: string;
}

/** One run a schedule starts: its tick's run or one of its handlers. */
export interface ScheduledRun {
  readonly path: string;
  readonly isFlow: boolean;
  readonly args: Record<string, unknown>;
  readonly jobId: string;
  /** The tick the run waits for (`scheduled_for`, it waits with `wake_at`); absent: now. */
  readonly scheduledFor?: Date;
  readonly tag?: string | null;
  /**
   * Windmill's schedule `retry`, for a script: the run is then a one-step flow running the script
   * with that retry (Windmill's `SingleStepFlow`); a flow has retries of its own on its steps.
   */
  readonly retry?: Record<string, unknown> | null;
  /** Recorded on the job (`trigger_kind`, `trigger_path`); a handler's run has none, as in Windmill. */
  readonly trigger?: TriggerRef;
}

/**
 * Starts a schedule's runs through the run use cases, as the schedule's owner: the token minted
 * for the schedule when it was last saved (`OwnerTokens`), opened only here, so a run has the
 * rights its owner has now (a removed user's schedules fail to start). The job id is the caller's
 * (derived from the tick), so starting the same run twice starts it once.
 */
@Injectable()
export class ScheduleRunStarter {
  constructor(
    private readonly owners: OwnerTokens,
    private readonly flows: RunFlowUseCase,
    private readonly scripts: RunScriptUseCase,
  ) {}

  async start(owner: RunOwner, run: ScheduledRun): Promise<string> {
    const workspace = owner.workspace_id;
    const token = this.owners.open(
      { sealed: owner.owner_token },
      scheduleTokenLabel(workspace, owner.schedule_path),
    );
    const request = {
      actor: { token },
      workspace,
      path: run.path,
      args: run.args,
      job_id: run.jobId,
      ...(run.scheduledFor ? { scheduled_for: run.scheduledFor.toISOString() } : {}),
      ...(run.tag ? { tag: run.tag } : {}),
      ...(run.trigger ? { trigger: run.trigger } : {}),
    };
    const identity = ownerIdentity(owner);
    if (run.isFlow) return this.flows.run(request, identity);
    if (!run.retry) return this.scripts.run(request, identity);
    const { tag: _step, ...asFlow } = request;
    return this.flows.run(
      { ...asFlow, value: scriptWithRetry(run.path, run.args, run.tag, run.retry) },
      identity,
    );
  }
}

/**
 * Who the run is recorded as started by. Not asked of the registry on every tick (a schedule a
 * second would ask a second): the registry checks the token itself when it reads the target and
 * issues the run's job token from it, and refuses it once the owner lost their rights or left.
 */
function ownerIdentity(owner: RunOwner): CallerIdentity {
  return {
    workspace: owner.workspace_id,
    kind: 'user',
    username: owner.edited_by,
    email: owner.email,
    isAdmin: false,
    groups: [],
  };
}

/** A script by path as the one step of a flow, with the schedule's args and retry. */
function scriptWithRetry(
  path: string,
  args: Record<string, unknown>,
  tag: string | null | undefined,
  retry: Record<string, unknown>,
): Record<string, unknown> {
  const inputTransforms = Object.fromEntries(
    Object.keys(args).map((name) => [
      name,
      { type: 'javascript', expr: `flow_input[${JSON.stringify(name)}]` },
    ]),
  );
  return {
    modules: [
      {
        id: 'scheduled',
        value: {
          type: 'script',
          path,
          input_transforms: inputTransforms,
          ...(tag ? { tag_override: tag } : {}),
        },
        retry,
      },
    ],
  };
}
