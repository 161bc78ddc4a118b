import type { TriggerRef } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { RegistryAuthenticator } from '../../http/registry-authenticator.js';
import { RunFlowUseCase } from '../../jobs/run-flow.use-case.js';
import { RunScriptUseCase } from '../../jobs/run-script.use-case.js';
import { OwnerTokens } from '../owner-tokens.js';
import type { ScheduleRow } from './schedule.store.js';
import { scheduleTokenLabel } from './schedules-api.service.js';

/** One run a schedule starts: its tick's run or one of its handlers. */
export interface ScheduledRun {
  readonly path: string;
  readonly isFlow: boolean;
  readonly args: Record<string, unknown>;
  readonly jobId: string;
  /** The tick the run waits for (`scheduled_for`, it waits with `wake_at`); absent: now. */
  readonly scheduledFor?: Date;
  readonly tag?: string | null;
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
    private readonly authenticator: RegistryAuthenticator,
    private readonly flows: RunFlowUseCase,
    private readonly scripts: RunScriptUseCase,
  ) {}

  async start(
    schedule: Pick<ScheduleRow, 'workspace_id' | 'path' | 'owner_token'>,
    run: ScheduledRun,
  ): Promise<string> {
    const workspace = schedule.workspace_id;
    const token = this.owners.open(
      { sealed: schedule.owner_token },
      scheduleTokenLabel(workspace, schedule.path),
    );
    const identity = await this.authenticator.authenticate(token, workspace);
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
    return run.isFlow ? this.flows.run(request, identity) : this.scripts.run(request, identity);
  }
}
