import { isTerminalJobStatus, jobEvents, MeshError, type JobKind } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { canceledResult } from '../engine/cancel-signals.js';
import { EngineOutbox } from '../engine/engine-outbox.js';
import { JobStore, type CancelMarked as Marked } from '../store/job.store.js';
import { isFlowKind } from '../store/job.record.js';

const isAgentKind = (kind: JobKind): boolean => kind === 'aiagent' || kind === 'aidecision';
import type { SqlStatement } from '../store/sql-batch.js';

/**
 * Cancels a job and everything below it, in a few statements whatever the tree's size (the mark
 * walks the tree by its `parent_job` index). Each is marked; a queued script job ends at once, and
 * so does a flow below the cancelled job that no one drives once everything below it ended (a
 * loop's 10 000 parked iterations end in the same statement, not one driver's turn each); any
 * other flow job is woken so its driver ends it (one driving it now sees the mark at its next
 * commit); a running script is aborted by its worker, a running AI step by agent-runtime
 * (`evt.job.cancel_requested`, which names the AI steps).
 */
@Injectable()
export class CancelJobUseCase {
  constructor(
    private readonly jobs: JobStore,
    private readonly outbox: EngineOutbox,
  ) {}

  async cancel(workspace: string, id: string, by: string, reason: string | null): Promise<boolean> {
    const job = await this.jobs.load(id);
    if (!job || job.workspace !== workspace) throw new MeshError('NOT_FOUND', `job ${id} not found`, { id });
    if (isTerminalJobStatus(job.status)) return false;
    const marked = await this.jobs.markCancelled(id, by, reason);
    const result = canceledResult(by, reason);
    // Set-based, so a tree of 10 000 jobs costs a few statements, not one per job: queued jobs
    // and AI steps end now, then every flow of the tree and every parent of an ended job is woken
    // (after its children ended, so its driver sees them).
    const ended = endedNow(marked, id);
    const endedIds = new Set(ended.map((row) => row.id));
    const agentSteps = ended.filter((row) => isAgentKind(row.kind)).map((row) => row.id);
    const woken = new Set(
      marked.filter((row) => isFlowKind(row.kind) && !endedIds.has(row.id)).map((row) => row.id),
    );
    for (const row of ended) if (row.parent_job && !endedIds.has(row.parent_job)) woken.add(row.parent_job);
    const statements: SqlStatement[] = [
      ...(ended.length > 0
        ? [
            this.jobs.finishCancelled(
              ended.map((row) => row.id),
              result,
            ),
          ]
        : []),
      ...(woken.size > 0 ? this.jobs.wakeAll([...woken], `cancel-${id}`) : []),
    ];
    statements.push(
      this.jobs.event(
        jobEvents.cancelRequested,
        {
          job_id: id,
          workspace,
          root_job: job.root_job,
          parent_job: job.parent_job,
          by,
          reason,
          ...(agentSteps.length > 0 ? { agent_steps: agentSteps } : {}),
        },
        `cancel:${id}:${Date.now()}`,
      ),
    );
    // Each statement alone, in order: the ends before the wakes.
    for (const statement of statements) await this.jobs.execute([statement]);
    this.outbox.afterCommit(statements);
    return true;
  }
}

/**
 * The marked jobs that end with the cancel itself: queued script jobs and AI steps, and the flows
 * below the cancelled job that no driver holds (no lease), hold no concurrency slot, and have
 * nothing left running below them. Such a flow's driver would only write what this writes (its
 * flow_status stays as it was; a child flow sends no event of its own). The cancelled job itself
 * ends through its driver, which also tells its parent or its waiters.
 */
function endedNow(marked: readonly Marked[], cancelledId: string): Marked[] {
  const children = new Map<string, Marked[]>();
  for (const row of marked)
    if (row.parent_job) children.set(row.parent_job, [...(children.get(row.parent_job) ?? []), row]);
  const ends = new Map<string, boolean>();
  const endsNow = (row: Marked): boolean => {
    const known = ends.get(row.id);
    if (known !== undefined) return known;
    let result: boolean;
    if (!isFlowKind(row.kind)) result = row.status === 'queued' || isAgentKind(row.kind);
    else
      result =
        row.id !== cancelledId &&
        row.lease_owner === null &&
        !row.limited &&
        // Every child visited (no short cut), so each gets its own answer.
        (children.get(row.id) ?? []).map(endsNow).every(Boolean);
    ends.set(row.id, result);
    return result;
  };
  // Parents first would recurse deeply only as far as the flow nesting limit allows.
  return marked.filter(endsNow);
}
