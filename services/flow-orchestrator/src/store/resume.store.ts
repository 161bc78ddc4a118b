import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from './connection-lanes.js';

/** An answer to a suspended step, as the approval gate reads it. */
export interface ResumeRow {
  readonly resume_id: number;
  readonly approver: string | null;
  readonly approved: boolean;
  readonly value: unknown;
}

/** `job_resume`: the answers (approvals, disapprovals) a suspended step got. */
@Injectable()
export class ResumeStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  /** Records an answer; a second one with the same `resumeId` replaces the first. */
  async save(answer: {
    suspendedJob: string;
    resumeId: number;
    flowJob: string;
    approver: string | null;
    approved: boolean;
    value: unknown;
  }): Promise<void> {
    await this.lanes.query(
      `INSERT INTO job_resume (suspended_job, resume_id, flow_job, approver, approved, value)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb)
       ON CONFLICT (suspended_job, resume_id) DO UPDATE
         SET approver = EXCLUDED.approver, approved = EXCLUDED.approved, value = EXCLUDED.value`,
      [
        answer.suspendedJob,
        answer.resumeId,
        answer.flowJob,
        answer.approver,
        answer.approved,
        JSON.stringify(answer.value ?? null),
      ],
    );
  }

  /** How many approved and disapproved the step so far. */
  async counts(suspendedJob: string): Promise<{ approved: number; disapproved: number }> {
    const [counts] = await this.lanes.query<{ approved: number; disapproved: number }>(
      `SELECT count(*) FILTER (WHERE approved)::int AS approved, count(*) FILTER (WHERE NOT approved)::int AS disapproved
       FROM job_resume WHERE suspended_job = $1`,
      [suspendedJob],
    );
    return counts ?? { approved: 0, disapproved: 0 };
  }

  /** The step's answers in the order given. */
  list(suspendedJob: string): Promise<ResumeRow[]> {
    return this.lanes.query<ResumeRow>(
      `SELECT resume_id, approver, approved, value FROM job_resume WHERE suspended_job = $1 ORDER BY created_at, resume_id`,
      [suspendedJob],
    );
  }
}
