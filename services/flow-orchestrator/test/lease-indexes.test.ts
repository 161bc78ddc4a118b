import { startTestService, type TestService } from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowOrchestratorDefinition } from '../src/flow-orchestrator.definition.js';
import { PARKED_APPROVALS_SQL } from '../src/store/job-listing.store.js';

/**
 * The lease queries every process runs all the time (renewing its leases, finding lapsed ones)
 * must not scan the whole job table: with sequential scans ruled out, the planner still finds
 * an index for each.
 */
describe('flow-orchestrator: lease and metrics queries use indexes', () => {
  let orchestrator: TestService;
  let client: pg.Client;

  beforeAll(async () => {
    orchestrator = await startTestService(flowOrchestratorDefinition);
    client = new pg.Client({ connectionString: orchestrator.config.database.url });
    await client.connect();
    await client.query('SET search_path TO orchestrator');
    await client.query('SET enable_seqscan = off');
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await orchestrator?.stop();
  });

  async function plan(sql: string, params: unknown[]): Promise<string> {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  it("renewing a process's leases", async () => {
    const text = await plan(
      `UPDATE job SET lease_until = now() + $2 * interval '1 millisecond'
       WHERE id IN (SELECT id FROM job WHERE lease_owner = $1 FOR UPDATE SKIP LOCKED) AND lease_owner = $1`,
      ['worker-1', 1000],
    );
    expect(text).toContain('job_lease_owner');
    expect(text).not.toContain('Seq Scan');
  });

  it('finding leases that lapsed', async () => {
    const text = await plan(
      `SELECT id FROM job WHERE lease_owner IS NOT NULL AND lease_until < now() - $1 * interval '1 millisecond'
         AND status NOT IN ('completed','failed','cancelled') LIMIT 500`,
      [1000],
    );
    expect(text).toContain('job_lease_until');
    expect(text).not.toContain('Seq Scan');
  });

  it('counting parked approvals at each scrape of /metrics', async () => {
    const text = await plan(PARKED_APPROVALS_SQL, []);
    expect(text).toContain('job_suspended');
    expect(text).not.toContain('Seq Scan');
  });
});
