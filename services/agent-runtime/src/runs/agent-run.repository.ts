import type { AgentStepStartRequest, ChatCompletedEvent, ReportedAgentAction } from '@flowmesh/contracts';
import { rowsOf } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AgentAnswer, AgentCheckpoint, AgentProgress, CallProgress } from '../pause/agent-checkpoint.js';

/** What the orchestrator is told when the step ends. */
export interface AgentStepOutcome {
  readonly success: boolean;
  readonly result: unknown;
  /** Its last actions, reported with it (and so stored with it: a replica resending it sends them too). */
  readonly actions?: ReportedAgentAction[];
}

/** An accepted step as stored: the start request without its token, the token sealed apart. */
export interface AgentRunRow {
  readonly jobId: string;
  readonly workspace: string;
  readonly request: Omit<AgentStepStartRequest, 'job_token'>;
  readonly sealedToken: string;
  readonly outcome: AgentStepOutcome | null;
  readonly attempts: number;
  /** Set when the agent parked: it resumes from here, with `answer` (null: nobody answered in time). */
  readonly checkpoint: AgentCheckpoint | null;
  readonly answer: AgentAnswer | null;
  /** Set while it runs: a replica that takes it over goes on from its last turn, with `calls`. */
  readonly progress: AgentProgress | null;
  readonly calls: Readonly<Record<string, CallProgress>>;
  /** The model answers its runs received, by call key (see ModelAnswers). */
  readonly answers: Readonly<Record<string, ChatCompletedEvent>>;
}

interface RawRow {
  job_id: string;
  workspace: string;
  request: Omit<AgentStepStartRequest, 'job_token'>;
  job_token: string;
  outcome: AgentStepOutcome | null;
  attempts: number;
  checkpoint: AgentCheckpoint | null;
  answer: AgentAnswer | null;
  progress: AgentProgress | null;
  calls: Record<string, CallProgress> | null;
  answers: Record<string, ChatCompletedEvent> | null;
}

/** The request a parked step takes an answer to. */
export interface AnswerableRequest {
  readonly kind: 'approval' | 'question';
  readonly callId: string;
}

const toRow = (raw: RawRow): AgentRunRow => ({
  jobId: raw.job_id,
  workspace: raw.workspace,
  request: raw.request,
  sealedToken: raw.job_token,
  outcome: raw.outcome,
  attempts: raw.attempts,
  checkpoint: raw.checkpoint,
  answer: raw.answer,
  progress: raw.progress,
  calls: raw.calls ?? {},
  answers: raw.answers ?? {},
});

/**
 * `agent_run` rows. A replica owns a row while its lease lasts and renews it while the agent
 * runs; a row whose lease ran out is anybody's (its replica died, or it waited for a free slot).
 */
@Injectable()
export class AgentRunRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records an accepted step, owned by `owner` for `leaseMs` (0: left for whichever replica has
   * a free slot first). False when the step was accepted before (a redelivered start).
   */
  async accept(
    request: Omit<AgentStepStartRequest, 'job_token'>,
    sealedToken: string,
    owner: string | null,
    leaseMs: number,
  ): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO agent_run (job_id, workspace, request, job_token, owner, attempts, lease_until)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, now() + make_interval(secs => $7::double precision / 1000))
       ON CONFLICT (job_id) DO NOTHING RETURNING job_id`,
      [
        request.job_id,
        request.workspace,
        JSON.stringify(request),
        sealedToken,
        owner,
        owner ? 1 : 0,
        leaseMs,
      ],
    );
    return rows.length > 0;
  }

  /**
   * Claims up to `limit` rows whose lease ran out, oldest first; each claim counts as an attempt.
   * A parked step's lease runs until its request times out, or until it is answered; once claimed
   * it takes no more answers.
   */
  async claimExpired(owner: string, leaseMs: number, limit: number): Promise<AgentRunRow[]> {
    if (limit <= 0) return [];
    const rows = rowsOf<RawRow>(
      await this.dataSource.query(
        `UPDATE agent_run SET owner = $1, attempts = attempts + 1, waiting = NULL,
              lease_until = now() + make_interval(secs => $2::double precision / 1000)
        WHERE job_id IN (
          SELECT job_id FROM agent_run WHERE lease_until < now()
           ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING job_id, workspace, request, job_token, outcome, attempts, checkpoint, answer, progress, calls,
                 answers`,
        [owner, leaseMs, limit],
      ),
    );
    return rows.map(toRow);
  }

  /** The owners of leased steps whose owner runs on `host` (`host:pid:random`). */
  async ownersOn(host: string): Promise<string[]> {
    const rows = rowsOf<{ owner: string }>(
      await this.dataSource.query(
        `SELECT DISTINCT owner FROM agent_run WHERE starts_with(owner, $1) AND lease_until > now()`,
        [`${host}:`],
      ),
    );
    return rows.map((row) => row.owner);
  }

  /** Ends the leases these owners hold, so a poll claims their steps at once; how many. */
  async expire(owners: readonly string[]): Promise<number> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(
        `UPDATE agent_run SET lease_until = now() WHERE owner = ANY($1::text[]) AND lease_until > now()
         RETURNING job_id`,
        [owners],
      ),
    );
    return rows.length;
  }

  /** Extends the leases `owner` holds on these steps; answers the ids it still holds. */
  async renew(owner: string, jobIds: readonly string[], leaseMs: number): Promise<string[]> {
    if (jobIds.length === 0) return [];
    const rows = rowsOf<{ job_id: string }>(
      await this.dataSource.query(
        `UPDATE agent_run SET lease_until = now() + make_interval(secs => $3::double precision / 1000)
          WHERE owner = $1 AND job_id = ANY($2::uuid[]) RETURNING job_id`,
        [owner, jobIds, leaseMs],
      ),
    );
    return rows.map((row) => row.job_id);
  }

  /** The turn `owner` runs now (its calls not begun); false when the step is not its any more. */
  async saveProgress(owner: string, jobId: string, progress: AgentProgress): Promise<boolean> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(
        `UPDATE agent_run SET progress = $3::jsonb, calls = '{}'::jsonb
          WHERE job_id = $1 AND owner = $2 RETURNING job_id`,
        [jobId, owner, JSON.stringify(progress)],
      ),
    );
    return rows.length > 0;
  }

  /** What became of one call of the turn in progress (merged into what was known of it). */
  async saveCall(owner: string, jobId: string, callId: string, call: CallProgress): Promise<boolean> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(
        `UPDATE agent_run
            SET calls = jsonb_set(calls, ARRAY[$3], COALESCE(calls -> $3, '{}'::jsonb) || $4::jsonb)
          WHERE job_id = $1 AND owner = $2 RETURNING job_id`,
        [jobId, owner, callId, JSON.stringify(call)],
      ),
    );
    return rows.length > 0;
  }

  /**
   * Keeps a model answer under its call key unless one is kept there already. Whoever owns the
   * step now: the answer was paid for, and a replica that took the step over uses it too.
   */
  async saveAnswer(jobId: string, key: string, answer: ChatCompletedEvent): Promise<void> {
    await this.dataSource.query(
      `UPDATE agent_run SET answers = answers || jsonb_build_object($2::text, $3::jsonb)
        WHERE job_id = $1 AND NOT answers ? $2`,
      [jobId, key, JSON.stringify(answer)],
    );
  }

  /** Keeps the outcome until the orchestrator has confirmed it, so a failed report is sent again. */
  async saveOutcome(jobId: string, outcome: AgentStepOutcome): Promise<void> {
    await this.dataSource.query(`UPDATE agent_run SET outcome = $2::jsonb WHERE job_id = $1`, [
      jobId,
      JSON.stringify(outcome),
    ]);
  }

  /**
   * Parks the step `owner` runs: its checkpoint stored, its lease running until the request times
   * out (then any replica resumes it, unanswered), and no replica owning it meanwhile.
   */
  async park(
    owner: string,
    jobId: string,
    checkpoint: AgentCheckpoint,
    request: AnswerableRequest,
  ): Promise<boolean> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(
        `UPDATE agent_run SET checkpoint = $3::jsonb, waiting = $4::jsonb, answer = NULL, owner = NULL,
                progress = NULL, calls = '{}'::jsonb, attempts = 0, lease_until = $5::timestamptz
          WHERE job_id = $1 AND owner = $2 RETURNING job_id`,
        [jobId, owner, JSON.stringify(checkpoint), JSON.stringify(request), checkpoint.waiting.until],
      ),
    );
    return rows.length > 0;
  }

  /** What the parked step `jobId` of `workspace` takes an answer to; undefined when it takes none. */
  async answerable(jobId: string, workspace: string): Promise<AnswerableRequest | undefined> {
    const rows = rowsOf<{ waiting: AnswerableRequest | null }>(
      await this.dataSource.query(
        `SELECT waiting FROM agent_run WHERE job_id = $1 AND workspace = $2 AND answer IS NULL`,
        [jobId, workspace],
      ),
    );
    return rows[0]?.waiting ?? undefined;
  }

  /** Stores the first answer to request `callId` and ends the lease, so the step is claimed at once. */
  async answer(jobId: string, callId: string, answer: AgentAnswer): Promise<boolean> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(
        `UPDATE agent_run SET answer = $3::jsonb, lease_until = now()
          WHERE job_id = $1 AND answer IS NULL AND waiting->>'callId' = $2 RETURNING job_id`,
        [jobId, callId, JSON.stringify(answer)],
      ),
    );
    return rows.length > 0;
  }

  /** Up to `limit` parked steps waiting for an answer, oldest first (the sweep's candidates). */
  async parked(limit: number): Promise<{ job_id: string; workspace: string }[]> {
    return rowsOf<{ job_id: string; workspace: string }>(
      await this.dataSource.query(
        `SELECT job_id, workspace FROM agent_run
          WHERE waiting IS NOT NULL AND answer IS NULL AND owner IS NULL
          ORDER BY created_at LIMIT $1`,
        [limit],
      ),
    );
  }

  /** Removes these steps' rows while they are still parked and unanswered; their ids. */
  async removeParked(jobIds: readonly string[]): Promise<string[]> {
    if (jobIds.length === 0) return [];
    const rows = rowsOf<{ job_id: string }>(
      await this.dataSource.query(
        `DELETE FROM agent_run WHERE job_id = ANY($1::uuid[]) AND waiting IS NOT NULL AND answer IS NULL
          AND owner IS NULL RETURNING job_id`,
        [jobIds],
      ),
    );
    return rows.map((row) => row.job_id);
  }

  /** Gives a step back at once (this replica is stopping): another replica claims it. */
  async release(owner: string, jobIds: readonly string[]): Promise<void> {
    if (jobIds.length === 0) return;
    await this.dataSource.query(
      `UPDATE agent_run SET owner = NULL, lease_until = now() WHERE owner = $1 AND job_id = ANY($2::uuid[])`,
      [owner, jobIds],
    );
  }

  async remove(jobId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM agent_run WHERE job_id = $1`, [jobId]);
  }

  /** Removes the rows of these steps that exist; their ids. */
  async removeAll(jobIds: readonly string[]): Promise<string[]> {
    if (jobIds.length === 0) return [];
    const rows = rowsOf<{ job_id: string }>(
      await this.dataSource.query(`DELETE FROM agent_run WHERE job_id = ANY($1::uuid[]) RETURNING job_id`, [
        jobIds,
      ]),
    );
    return rows.map((row) => row.job_id);
  }
}
