import { Injectable } from '@nestjs/common';
import { ResumeStore, type ResumeRow } from '../../store/resume.store.js';
import type { FlowRun } from '../flow-run.js';

const DEFAULT_TIMEOUT_S = 30 * 60;

/** What the step after an approval sees. */
export interface ResumeVars {
  readonly resume: unknown;
  readonly resumes: unknown[];
  readonly approvers: string[];
}

export const NO_RESUME: ResumeVars = { resume: null, resumes: [], approvers: [] };

export type GateDecision =
  | { readonly kind: 'open'; readonly vars: ResumeVars }
  | {
      readonly kind: 'wait';
      readonly suspendedJob: string;
      readonly required: number;
      readonly timeoutAt: number;
    }
  | { readonly kind: 'fail'; readonly result: unknown };

/**
 * The approval in front of module `index` (or of the flow's end, `index` = module count) when
 * the module before it has `suspend` with required_events. Approvals (`job_resume` rows of that
 * module's job) open it once enough arrived; a disapproval or the timeout fail the flow, or let
 * it continue with the error as the last resume when `continue_on_disapprove_timeout`.
 */
@Injectable()
export class ApprovalGate {
  constructor(private readonly resumes: ResumeStore) {}

  /** The module whose `suspend` guards the start of `index`, with its job, or undefined. */
  guard(run: FlowRun, index: number): { required: number; job: string; stepIndex: number } | undefined {
    const stepIndex = index - 1;
    if (stepIndex < 0) return undefined;
    const suspend = run.modules[stepIndex]?.suspend;
    const required = suspend?.required_events ?? 0;
    const status = run.status.modules[stepIndex];
    if (!suspend || required <= 0 || status?.type !== 'Success' || !status.job) return undefined;
    return { required, job: status.job, stepIndex };
  }

  async decide(run: FlowRun, index: number, now = Date.now()): Promise<GateDecision> {
    const guard = this.guard(run, index);
    if (!guard) return { kind: 'open', vars: NO_RESUME };
    const suspend = run.modules[guard.stepIndex].suspend!;
    const rows = await this.rows(guard.job);
    const disapproval = rows.find((row) => !row.approved);
    const enough = !disapproval && rows.length >= guard.required;
    const pending = run.runtime.suspendTimeout;
    const timeoutAt =
      pending?.step === index ? pending.at : now + (suspend.timeout ?? DEFAULT_TIMEOUT_S) * 1000;
    const timedOut = pending?.step === index && now >= pending.at;
    const values: unknown[] = rows.map((row) => row.value ?? null);
    const stepStatus = run.status.modules[guard.stepIndex];
    if (enough || ((disapproval || timedOut) && suspend.continue_on_disapprove_timeout)) {
      if (!enough) values.push(disapprovalOrTimeout(disapproval));
      stepStatus.approvers = rows.map((row) => ({
        resume_id: row.resume_id,
        approver: row.approver ?? 'anonymous',
      }));
      return {
        kind: 'open',
        vars: {
          resume: values.at(-1) ?? null,
          resumes: values,
          approvers: rows.map((row) => row.approver ?? 'anonymous'),
        },
      };
    }
    if (!disapproval && !timedOut)
      return { kind: 'wait', suspendedJob: guard.job, required: guard.required, timeoutAt };
    return { kind: 'fail', result: disapprovalOrTimeout(disapproval) };
  }

  /** For a module that already started after its gate opened: what it saw then. */
  async varsFor(run: FlowRun, index: number): Promise<ResumeVars> {
    const guard = this.guard(run, index);
    if (!guard) return NO_RESUME;
    const rows = await this.rows(guard.job);
    const values: unknown[] = rows.map((row) => row.value ?? null);
    const disapproval = rows.find((row) => !row.approved);
    if (disapproval || rows.length < guard.required) values.push(disapprovalOrTimeout(disapproval));
    return {
      resume: values.at(-1) ?? null,
      resumes: values,
      approvers: rows.map((row) => row.approver ?? 'anonymous'),
    };
  }

  rows(suspendedJob: string): Promise<ResumeRow[]> {
    return this.resumes.list(suspendedJob);
  }
}

function disapprovalOrTimeout(disapproval: ResumeRow | undefined): unknown {
  return disapproval
    ? {
        error: {
          name: 'SuspendedDisapproved',
          message: `Disapproved by ${disapproval.approver ?? 'unknown'}`,
        },
      }
    : { error: { name: 'SuspendedTimedOut', message: 'Timed out waiting to be resumed' } };
}
