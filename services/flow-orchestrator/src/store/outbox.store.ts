import { randomUUID } from 'node:crypto';
import {
  runJobWork,
  runJobWorkFor,
  runPriorityJobWork,
  validationError,
  workSubject,
  type EventContract,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { ConnectionLanes } from './connection-lanes.js';
import { NOT_SCRIPT_KINDS } from './job-columns.js';
import type { SqlStatement } from './sql-batch.js';

const TAG = 'tag';

/** `workSubject` with the tag read in SQL from `tagSql`, the kind a literal. */
function workSubjectOfTag(tagSql: string, workKind: string): string {
  const [before, after] = workSubject(TAG, workKind).split(TAG);
  return `'${before}' || ${tagSql} || '${after}'`;
}

/**
 * A job row's work subject, in SQL, as `runJobWorkFor` and `workSubject` name it in TypeScript:
 * the tag's job lane, or its priority lane for a priority above 0. Statements using it select
 * the row's `tag` and `priority`.
 */
const WORK_SUBJECT_SQL = `CASE WHEN priority > 0 THEN ${workSubjectOfTag('tag', runPriorityJobWork.workKind)} ELSE ${workSubjectOfTag('tag', runJobWork.workKind)} END`;

/**
 * SQL that queues a work message for each job row `from` yields (its `id`, `workspace`, `tag`
 * and `priority`), each with the message id `msgIdSql` (SQL) says.
 */
export function workMessagesSql(from: string, msgIdSql: string): string {
  return `INSERT INTO outbox_message (id, subject, payload, headers, msg_id)
       SELECT gen_random_uuid(), ${WORK_SUBJECT_SQL}, jsonb_build_object('jobId', id, 'workspace', workspace),
              '{}'::jsonb, ${msgIdSql}
       FROM ${from}`;
}

/** A work message for a job on `tag` (`work.<tag>.job`, `work.<tag>.priority` for a priority above 0). */
export function dispatchStatement(
  job: { id: string; workspace: string; tag: string; priority?: number | null; kind?: string },
  msgId = `run:${job.id}`,
): SqlStatement {
  const work = runJobWorkFor(job.priority);
  const script = job.kind !== undefined && !NOT_SCRIPT_KINDS.has(job.kind);
  return outboxStatement(
    workSubject(job.tag, work.workKind),
    work.payload.parse({ jobId: job.id, workspace: job.workspace, ...(script ? { script } : {}) }),
    msgId,
  );
}

export function eventStatement<P extends z.ZodType>(
  contract: EventContract<P>,
  payload: z.input<P>,
  msgId: string,
): SqlStatement {
  const checked = contract.payload.safeParse(payload);
  if (!checked.success) throw validationError(`event ${contract.subject}`, checked.error);
  return outboxStatement(contract.subject, checked.data, msgId);
}

function outboxStatement(subject: string, payload: unknown, msgId: string): SqlStatement {
  return {
    sql: `INSERT INTO outbox_message (id, subject, payload, headers, msg_id)
          VALUES ($1, $2, $3::jsonb, '{}'::jsonb, $4) ON CONFLICT (msg_id) DO NOTHING`,
    params: [randomUUID(), subject, JSON.stringify(payload), msgId],
    message: { subject, payload, msgId },
  };
}

/** The outbox rows the engine published itself (the relay publishes the rest). */
@Injectable()
export class OutboxStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  async markPublished(msgIds: readonly string[]): Promise<void> {
    await this.lanes.unprepared(
      `UPDATE outbox_message SET published_at = now() WHERE msg_id = ANY($1) AND published_at IS NULL`,
      [msgIds],
    );
  }
}
