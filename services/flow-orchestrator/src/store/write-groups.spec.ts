import type { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { ConnectionLanes } from './connection-lanes.js';
import { WriteGroups, type GroupedWrite } from './write-groups.js';

/** Records the job ids each statement sent carries and holds it until `release()`; answers a row per id. */
class HeldJobs extends ConnectionLanes {
  readonly sent: Array<{ ids: unknown[]; sql: string }> = [];
  /** The connection (of those held apart) each group statement went to. */
  readonly lanes: number[] = [];
  failWhen: (ids: readonly unknown[]) => boolean = () => false;
  private gates: Array<() => void> = [];

  constructor() {
    super(undefined as unknown as DataSource);
  }

  /** Two groups in flight at once (a pool of ten). */
  override get apartLanes(): number {
    return 2;
  }

  override query<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return this.hold(sql, params);
  }

  override queryApart<Row>(lane: number, sql: string, params: readonly unknown[]): Promise<Row[]> {
    this.lanes.push(lane);
    return this.hold(sql, params);
  }

  private async hold<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    const ids = params.filter((param) => typeof param === 'string');
    this.sent.push({ ids, sql });
    await new Promise<void>((resolve) => this.gates.push(resolve));
    if (this.failWhen(ids)) throw new Error('check constraint violated');
    return ids.map((id) => ({ id })) as Row[];
  }

  /** The ids of each statement sent, in order. */
  get batches(): unknown[][] {
    return this.sent.map((s) => s.ids);
  }

  async release(): Promise<void> {
    await tick();
    const gates = this.gates;
    this.gates = [];
    for (const gate of gates) gate();
    await tick();
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A write of job `id`'s row (and `rows`); `null`: it may touch anyone's rows. `shape` changes its statement's text. */
function write(id: string, rows: string[] | null = [id], shape = 'x'): GroupedWrite {
  return {
    id,
    statements: [{ sql: `UPDATE job SET ${shape} = 1 WHERE id = $1 RETURNING id`, params: [id] }],
    rows: rows ? new Set(rows) : undefined,
  };
}

describe('WriteGroups', () => {
  it('writes that arrive while others commit go out together, each answered with its own rows', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    const first = groups.write(write('a'));
    const second = groups.write(write('b'));
    const waiting = ['c', 'd', 'e', 'f'].map((id) => groups.write(write(id)));
    await tick();
    // Two groups in flight (one write each); the next four wait, then share one statement.
    expect(jobs.batches).toEqual([['a'], ['b']]);
    await jobs.release();
    expect(jobs.batches).toEqual([['a'], ['b'], ['c', 'd', 'e', 'f']]);
    expect(jobs.sent[2].sql).toMatch(
      /^WITH s0 AS \(UPDATE job SET x = 1 WHERE id = \$1 RETURNING id\),\ns1 AS \(UPDATE job SET x = 1 WHERE id = \$2/,
    );
    expect(jobs.sent[2].sql).toMatch(
      /\nSELECT \* FROM s0 UNION ALL SELECT \* FROM s1 UNION ALL SELECT \* FROM s2 UNION ALL SELECT \* FROM s3$/,
    );
    await jobs.release();
    expect(jobs.lanes).toEqual([0]);
    expect(await first).toEqual([{ id: 'a' }]);
    expect(await second).toEqual([{ id: 'b' }]);
    expect(await Promise.all(waiting)).toEqual([[{ id: 'c' }], [{ id: 'd' }], [{ id: 'e' }], [{ id: 'f' }]]);
  });

  it('a group holds a power of two writes (few statement texts to plan); the rest go next', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    void groups.write(write('x'));
    void groups.write(write('y'));
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) void groups.write(write(id));
    await tick();
    await jobs.release();
    expect(jobs.batches.slice(2)).toEqual([
      ['a', 'b', 'c', 'd'],
      ['e', 'f'],
    ]);
    await jobs.release();
    expect(jobs.batches.slice(4)).toEqual([['g']]);
    await jobs.release();
  });

  it('the same shape and size give the same statement text (Postgres keeps it prepared)', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    for (const round of [1, 2]) {
      void groups.write(write(`x${round}`));
      void groups.write(write(`y${round}`));
      for (const id of ['c', 'd']) void groups.write(write(`${id}${round}`));
      await jobs.release();
      await jobs.release();
    }
    expect(jobs.sent[2].ids).toEqual(['c1', 'd1']);
    expect(jobs.sent[5].ids).toEqual(['c2', 'd2']);
    expect(jobs.sent[5].sql).toBe(jobs.sent[2].sql);
  });

  it('writes of different shapes go in different statements; one passed over still comes before later writes of its rows', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    void groups.write(write('x'));
    void groups.write(write('y'));
    void groups.write(write('a'));
    void groups.write(write('b', ['b'], 'other'));
    void groups.write(write('c'));
    void groups.write(write('b2', ['b']));
    await tick();
    await jobs.release();
    // 'b2' touches b's row: it waits for 'b', although it has the shape of the group.
    expect(jobs.batches.slice(2)).toEqual([['a', 'c'], ['b']]);
    await jobs.release();
    expect(jobs.batches.slice(4)).toEqual([['b2']]);
    await jobs.release();
  });

  it('a write touching a row of a write in flight waits for it', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    void groups.write(write('parent', ['parent', 'child']));
    void groups.write(write('child'));
    void groups.write(write('other'));
    await tick();
    expect(jobs.batches).toEqual([['parent'], ['other']]);
    await jobs.release();
    expect(jobs.batches).toEqual([['parent'], ['other'], ['child']]);
    await jobs.release();
  });

  it('two writes of one row never share a statement', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    void groups.write(write('x'));
    void groups.write(write('y'));
    const sameTwice = [groups.write(write('a')), groups.write(write('a'))];
    await tick();
    await jobs.release();
    expect(jobs.batches.slice(2)).toEqual([['a']]);
    await jobs.release();
    expect(jobs.batches.slice(2)).toEqual([['a'], ['a']]);
    await jobs.release();
    await Promise.all(sameTwice);
  });

  it('a write that may touch anyone’s rows waits for every group, commits alone, and holds back later ones', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    void groups.write(write('a'));
    const wake = groups.write(write('w', null));
    void groups.write(write('b'));
    await tick();
    expect(jobs.batches).toEqual([['a']]);
    await jobs.release();
    expect(jobs.batches).toEqual([['a'], ['w']]);
    await jobs.release();
    expect(jobs.batches).toEqual([['a'], ['w'], ['b']]);
    await jobs.release();
    expect(await wake).toEqual([{ id: 'w' }]);
  });

  it('when a group fails, each of its writes is tried alone: only the bad one fails', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    void groups.write(write('x'));
    void groups.write(write('y'));
    const outcomes = ['a', 'bad'].map((id) =>
      groups.write(write(id)).then(
        (rows) => rows,
        (error: Error) => error.message,
      ),
    );
    jobs.failWhen = (ids) => ids.includes('bad');
    for (let i = 0; i < 5; i++) await jobs.release();
    expect(await Promise.all(outcomes)).toEqual([[{ id: 'a' }], 'check constraint violated']);
    expect(jobs.batches.slice(2)).toEqual([['a', 'bad'], ['a'], ['bad']]);
  });
});

describe('ConnectionLanes.apartLanes', () => {
  const withPool = (max: number | undefined) =>
    new ConnectionLanes({ driver: { master: { options: { max } } } } as unknown as DataSource).apartLanes;

  it('holds a fifth of the pool apart for groups of writes, from one to four', () => {
    expect(withPool(20)).toBe(4);
    expect(withPool(10)).toBe(2);
    expect(withPool(3)).toBe(1);
    expect(withPool(100)).toBe(4);
    expect(withPool(undefined)).toBe(2);
  });
});
