import { randomUUID } from 'node:crypto';
import { startTestService, waitFor, type TestService } from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowOrchestratorDefinition } from '../src/flow-orchestrator.definition.js';
import { ConnectionLanes } from '../src/store/connection-lanes.js';
import { JobStore } from '../src/store/job.store.js';
import type { SqlStatement } from '../src/store/sql-batch.js';
import { WriteGroups } from '../src/store/write-groups.js';

/** Many flows' writes committed as one statement on the real Postgres: each lands, and each is answered with its own row. */
describe('flow-orchestrator: grouped writes on Postgres', () => {
  let orchestrator: TestService;
  let jobs: JobStore;
  let lanes: ConnectionLanes;
  /** Statements sent to Postgres, by the number of job writes each carried. */
  const sent: number[] = [];

  beforeAll(async () => {
    orchestrator = await startTestService(flowOrchestratorDefinition);
    jobs = orchestrator.running.app.get(JobStore);
    const real = orchestrator.running.app.get(ConnectionLanes);
    lanes = Object.create(real) as ConnectionLanes;
    const flowUpdates = (sql: string) => sql.split('RETURNING id, canceled_by').length - 1;
    lanes.query = (sql, params) => {
      if (flowUpdates(sql) > 0) sent.push(flowUpdates(sql));
      return real.query(sql, params);
    };
    lanes.queryApart = (lane, sql, params) => {
      sent.push(flowUpdates(sql));
      return real.queryApart(lane, sql, params);
    };
  }, 120_000);

  afterAll(async () => {
    await orchestrator?.stop();
  });

  const flowRow = (id: string, parent?: string): SqlStatement =>
    jobs.insert({
      id,
      workspace: 'main',
      kind: 'flow',
      parent_job: parent ?? null,
      root_job: parent ?? id,
      args: {},
      status: 'running',
      runtime: {},
      created_by: 'u/test',
      on_behalf_of: 'u/test',
      email: 'test@example.test',
      tag: 'flow',
      skipped: false,
    } as never);

  /** A step's row, its log line, and the flow's status: what a flow commits for a step. */
  function stepWrite(flow: string, step: number, stepId = randomUUID()) {
    const statements = [
      jobs.insert(
        {
          id: stepId,
          workspace: 'main',
          kind: 'flowscript',
          parent_job: flow,
          root_job: flow,
          flow_step_id: `s${step}`,
          args: {},
          status: 'completed',
          result: step,
          runtime: {},
          created_by: 'u/test',
          on_behalf_of: 'u/test',
          email: 'test@example.test',
          tag: 'default',
          skipped: false,
        } as never,
        { upsert: true },
      ),
      jobs.log(stepId, `step ${step} of ${flow}\n`),
      jobs.update(flow, { flow_status: { step } as never }),
    ];
    return { id: flow, statements, rows: new Set([flow, stepId]) };
  }

  it('thirty flows committing at once share statements; every row lands once, each write gets its own flow row back', async () => {
    const flows = Array.from({ length: 30 }, () => randomUUID());
    await jobs.execute(flows.map((flow) => flowRow(flow)));
    await lanes.query(`UPDATE job SET canceled_by = 'u/admin' WHERE id = $1`, [flows[7]]);
    const groups = new WriteGroups(lanes);
    sent.length = 0;

    const answers = await Promise.all(
      flows.map((flow) => groups.write<{ id: string; canceled_by: string | null }>(stepWrite(flow, 1))),
    );

    expect(answers.map((rows) => rows.map((row) => row.id))).toEqual(flows.map((flow) => [flow]));
    expect(answers.map((rows) => rows[0].canceled_by)).toEqual(
      flows.map((_, i) => (i === 7 ? 'u/admin' : null)),
    );
    expect(sent.reduce((a, b) => a + b, 0)).toBe(30);
    expect(sent.length).toBeLessThan(30);
    expect(Math.max(...sent)).toBeGreaterThan(1);
    const steps = await lanes.query<{ root_job: string; result: number }>(
      `SELECT root_job, result FROM job WHERE root_job = ANY($1::uuid[]) AND kind = 'flowscript'`,
      [flows],
    );
    expect(steps.map((row) => row.root_job).sort()).toEqual([...flows].sort());
    const statuses = await lanes.query<{ step: number }>(
      `SELECT (flow_status->>'step')::int AS step FROM job WHERE id = ANY($1::uuid[])`,
      [flows],
    );
    expect(statuses.map((row) => row.step)).toEqual(flows.map(() => 1));
    const logs = await lanes.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM job_log WHERE job_id IN (SELECT id FROM job WHERE root_job = ANY($1::uuid[]))`,
      [flows],
    );
    expect(logs[0].n).toBe(30);
  });

  it('a statement locking a whole tree is tried again when Postgres ends it to break a deadlock', async () => {
    const [parent, child] = [randomUUID(), randomUUID()];
    // One after the other, so that the parent's row comes first in the table too.
    await jobs.execute([flowRow(parent)]);
    await jobs.execute([flowRow(child, parent)]);
    const other = new pg.Client({ connectionString: orchestrator.config.database.url });
    await other.connect();
    // Postgres ends the transaction whose deadlock check runs once the cycle exists. The tree
    // statement waits first and checks after 3 s, the other one after 30 s: the tree statement
    // is the one ended, however slowly this machine gets the other one waiting.
    const checkingLate = Object.create(lanes) as ConnectionLanes;
    (checkingLate as unknown as { rows: ConnectionLanes['query'] }).rows = (sql, params) =>
      lanes.transaction(async (query) => {
        await query(`SET LOCAL deadlock_timeout = '3s'`, []);
        return query(sql, params);
      });
    try {
      await other.query('SET search_path TO orchestrator');
      await other.query(`SET deadlock_timeout = '30s'`);
      await other.query('BEGIN');
      await other.query(`UPDATE job SET priority = 1 WHERE id = $1`, [child]);
      // Locks the parent, then waits for the child.
      const marking = checkingLate.queryManyRows<{ id: string }>(
        `WITH RECURSIVE tree AS (
           SELECT id FROM job WHERE id = $1
           UNION ALL SELECT j.id FROM job j JOIN tree t ON j.parent_job = t.id)
         UPDATE job SET canceled_by = 'u/admin' WHERE id IN (SELECT id FROM tree) RETURNING id`,
        [parent],
      );
      // The tree statement waiting on this transaction's lock (the child row). Asked outside this
      // transaction: inside one, Postgres answers pg_stat_activity from the snapshot it took at the
      // first look, so a statement that began waiting later (or on a connection opened later) was
      // never seen on a loaded machine. Other test files share the database: their sessions may
      // wait on locks of their own, so the statement is found by its text.
      const { rows: own } = await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await waitFor(
        async () =>
          (
            await lanes.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE $1::int = ANY(pg_blocking_pids(pid)) AND query LIKE '%WITH RECURSIVE tree AS%'`,
              [own[0].pid],
            )
          )[0].n === 1,
        { description: 'the tree statement to wait for the child row' },
      );
      // Now the other transaction waits for the parent: a deadlock, which Postgres breaks by
      // ending the tree statement.
      await other.query(`UPDATE job SET priority = 1 WHERE id = $1`, [parent]);
      await other.query('COMMIT');
      expect((await marking).map((row) => row.id).sort()).toEqual([parent, child].sort());
      const { rows } = await other.query<{ deadlocks: number }>(
        `SELECT deadlocks::int FROM pg_stat_database WHERE datname = current_database()`,
      );
      // It did deadlock (else the test proves nothing).
      expect(rows[0].deadlocks).toBeGreaterThanOrEqual(1);
    } finally {
      await other.end();
    }
  });

  it('one bad write in a group fails alone; the others land', async () => {
    const flows = Array.from({ length: 6 }, () => randomUUID());
    await jobs.execute(flows.map((flow) => flowRow(flow)));
    const groups = new WriteGroups(lanes);
    const writes = flows.map((flow, i) => {
      const write = stepWrite(flow, 2);
      // A step row whose kind is NULL: the NOT NULL constraint refuses it.
      if (i === 4)
        write.statements[0] = {
          ...write.statements[0],
          params: write.statements[0].params.map((p, j) => (j === 2 ? null : p)),
        };
      return write;
    });
    const outcomes = await Promise.allSettled(writes.map((write) => groups.write(write)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(
      flows.map((_, i) => (i === 4 ? 'rejected' : 'fulfilled')),
    );
    const statuses = await lanes.query<{ id: string; step: number | null }>(
      `SELECT id, (flow_status->>'step')::int AS step FROM job WHERE id = ANY($1::uuid[])`,
      [flows],
    );
    const byId = new Map(statuses.map((row) => [row.id, row.step]));
    expect(flows.map((flow) => byId.get(flow))).toEqual(flows.map((_, i) => (i === 4 ? null : 2)));
  });

  it('a connection held apart that Postgres ends (a restart, a killed session) is replaced, and the process lives on', async () => {
    const lane = 7;
    const pidOf = async () =>
      (await lanes.queryApart<{ pid: number }>(lane, 'SELECT pg_backend_pid() AS pid', []))[0].pid;
    const before = await pidOf();
    const admin = new pg.Client({ connectionString: orchestrator.config.database.url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [before]);
      await waitFor(
        async () =>
          (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [before])).rowCount === 0,
        { description: 'the session to end' },
      );
    } finally {
      await admin.end();
    }
    // The idle connection hears of its end (an `error` event) and leaves its lane before the lane
    // is used again: used first, it would fail the statement instead of being replaced.
    const held = (lanes as unknown as { apart: Map<number, unknown> }).apart;
    await waitFor(() => !held.has(lane), { description: 'the ended connection to leave its lane' });
    const after = await pidOf();
    expect(after).not.toBe(before);
    expect(await pidOf()).toBe(after);
  });
});
