import type { FlowStatus } from '@flowmesh/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JobRecord } from '../store/job.record.js';
import type { ConnectionLanes } from '../store/connection-lanes.js';
import { JobStore } from '../store/job.store.js';
import type { SqlStatement } from '../store/sql-batch.js';
import type { EngineOutbox } from './engine-outbox.js';
import { FlowRun, RunTree } from './flow-run.js';
import { FlowStateStore } from './flow-state.store.js';
import type { WriteGroups } from '../store/write-groups.js';

/** The real statement builders; `execute` records each statement and waits for `release()`. */
class RecordingJobs extends JobStore {
  readonly executed: SqlStatement[][] = [];
  failCombined = false;
  private gates: Array<() => void> = [];

  constructor() {
    super(undefined as unknown as ConnectionLanes);
  }

  override async execute<Row>(statements: readonly SqlStatement[]): Promise<Row[]> {
    this.executed.push([...statements]);
    await new Promise<void>((resolve) => this.gates.push(resolve));
    const flowUpdates = statements.filter((s) => s.sql.includes('RETURNING id, canceled_by'));
    if (this.failCombined && statements.length > 2)
      throw new Error('ON CONFLICT DO UPDATE command cannot affect row a second time');
    expect(flowUpdates).toHaveLength(1);
    return [{ canceled_by: null, canceled_reason: null }] as Row[];
  }

  /** Resolves once `count` statements were sent. */
  async sent(count: number): Promise<void> {
    while (this.executed.length < count) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Lets statements finish until none comes for a few turns of the event loop. */
  async release(): Promise<void> {
    for (let quiet = 0; quiet < 3;) {
      await new Promise((resolve) => setImmediate(resolve));
      const gates = this.gates.splice(0);
      quiet = gates.length === 0 ? quiet + 1 : 0;
      gates.forEach((open) => open());
    }
  }
}

const outbox = { afterCommit: () => undefined } as unknown as EngineOutbox;

function flowRun(): FlowRun {
  const status: FlowStatus = {
    step: 0,
    modules: [],
    failure_module: { type: 'WaitingForPriorSteps', id: 'failure' },
  };
  const job = {
    id: 'flow-1',
    raw_flow: { modules: [] },
    flow_status: status,
    runtime: {},
    args: {},
  } as unknown as JobRecord;
  return new FlowRun(job, new RunTree('flow-1'), undefined, {
    get: () => Promise.resolve({ found: false, value: undefined }),
    all: () => Promise.resolve({}),
  });
}

function stepRow(jobs: JobStore, id: string): SqlStatement {
  return jobs.insert(
    {
      id,
      workspace: 'main',
      kind: 'flowscript',
      root_job: 'flow-1',
      tag: 'default',
      args: {},
      status: 'completed',
    } as never,
    { upsert: true },
  );
}

/** Each write straight to `jobs.execute`: how writes of many flows share statements is WriteGroups' own test. */
function writesOf(jobs: JobStore): WriteGroups {
  return { write: (write) => jobs.execute(write.statements) } as WriteGroups;
}

describe("FlowStateStore: a flow's queued writes", () => {
  it('steps that outrun their commits land together: each step row once, one flow update with the latest status and every field', async () => {
    const jobs = new RecordingJobs();
    const store = new FlowStateStore(jobs, writesOf(jobs), outbox);
    const run = flowRun();
    const first = store.save(run, [stepRow(jobs, 'step-1')], { status: 'running' });
    await jobs.sent(1);
    run.status = { ...run.status, step: 1 };
    const second = store.save(run, [stepRow(jobs, 'step-2'), jobs.log('step-2', 'hello')], { priority: 5 });
    run.status = { ...run.status, step: 2 };
    const third = store.save(run, [stepRow(jobs, 'step-3')]);
    await jobs.release();
    await Promise.all([first, second, third]);

    expect(jobs.executed).toHaveLength(2);
    const [alone, together] = jobs.executed;
    expect(alone.map((s) => s.jobRow ?? s.sql.slice(0, 15))).toEqual(['step-1', 'UPDATE job SET ']);
    expect(together.map((s) => s.jobRow ?? s.sql.slice(0, 15))).toEqual([
      'step-2',
      'INSERT INTO job',
      'step-3',
      'UPDATE job SET ',
    ]);
    const update = together[3];
    const status = update.params.find((param) => typeof param === 'string' && param.startsWith('{"modules"'));
    expect(JSON.parse(status as string)).toMatchObject({ step: 2 });
    // A field only the earlier of the merged writes set is kept.
    expect(update.sql).toContain('priority = ');
    expect(update.params).toContain(5);
  });

  it('a write touching a row twice, or rows it does not own, lands alone', async () => {
    const jobs = new RecordingJobs();
    const store = new FlowStateStore(jobs, writesOf(jobs), outbox);
    const run = flowRun();
    const first = store.save(run, [stepRow(jobs, 'step-1')]);
    await jobs.sent(1);
    const progress = store.save(run, [stepRow(jobs, 'step-2')]);
    const done = store.save(run, [stepRow(jobs, 'step-2')]);
    // Wakes the next queued job of a concurrency key: which row, only Postgres knows.
    const wake = store.save(run, [
      {
        sql: `UPDATE job SET wake_at = now() WHERE id = (SELECT id FROM job WHERE status = 'queued' LIMIT 1)`,
        params: [],
      },
    ]);
    await jobs.release();
    await Promise.all([first, progress, done, wake]);
    expect(jobs.executed.map((batch) => batch.length)).toEqual([2, 2, 2, 2]);
  });

  it('should a combined statement fail, each write is tried alone, in order', async () => {
    const jobs = new RecordingJobs();
    const store = new FlowStateStore(jobs, writesOf(jobs), outbox);
    const run = flowRun();
    const first = store.save(run, [stepRow(jobs, 'step-1')]);
    await jobs.sent(1);
    const second = store.save(run, [stepRow(jobs, 'step-2')]);
    const third = store.save(run, [stepRow(jobs, 'step-3')]);
    jobs.failCombined = true;
    await jobs.release();
    await Promise.all([first, second, third]);
    expect(jobs.executed.map((batch) => batch.map((s) => s.jobRow).filter(Boolean))).toEqual([
      ['step-1'],
      ['step-2', 'step-3'],
      ['step-2'],
      ['step-3'],
    ]);
    expect(run.writeError).toBeUndefined();
  });
});

describe('FlowStateStore: writes in the background', () => {
  afterEach(() => vi.useRealTimers());

  it('a run goes on while its writes are young, and waits once the oldest still landing is 20 ms old', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const jobs = new RecordingJobs();
    const store = new FlowStateStore(jobs, writesOf(jobs), outbox);
    const run = flowRun();
    const landed: string[] = [];
    let ahead = false;

    // The first steps' writes: the run goes on at once, the first landing, the second queued.
    await store.saveInBackground(run, [stepRow(jobs, 'step-1')], () => landed.push('step-1'));
    await jobs.sent(1);
    await store.saveInBackground(run, [stepRow(jobs, 'step-2')], () => landed.push('step-2'));
    // 20 ms later the first has still not landed: the next step's write waits for it.
    vi.setSystemTime(Date.now() + 20);
    const third = store
      .saveInBackground(run, [stepRow(jobs, 'step-3')], () => landed.push('step-3'))
      .then(() => (ahead = true));
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(ahead).toBe(false);
    expect(landed).toEqual([]);

    await jobs.release();
    await third;
    expect(landed[0]).toBe('step-1');
    await run.settled();
    expect(landed).toEqual(['step-1', 'step-2', 'step-3']);
  });
});
