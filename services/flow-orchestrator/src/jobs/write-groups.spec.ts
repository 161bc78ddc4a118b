import type { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { JobRepository } from './job.repository.js';
import type { SqlStatement } from './sql-batch.js';
import { WriteGroups, type GroupedWrite } from './write-groups.js';

/** Records each statement sent and holds it until `release()`; answers a row per job written. */
class HeldJobs extends JobRepository {
  readonly sent: Array<{ statements: SqlStatement[]; finalSql?: string }> = [];
  failWhen: (statements: readonly SqlStatement[]) => boolean = () => false;
  private gates: Array<() => void> = [];

  constructor() {
    super(undefined as unknown as DataSource);
  }

  override async execute<Row>(statements: readonly SqlStatement[], finalSql?: string): Promise<Row[]> {
    this.sent.push({ statements: [...statements], ...(finalSql ? { finalSql } : {}) });
    await new Promise<void>((resolve) => this.gates.push(resolve));
    if (this.failWhen(statements)) throw new Error('check constraint violated');
    const ids = statements.filter((s) => s.sql.startsWith('UPDATE')).map((s) => s.params[0]);
    return ids.map((id) => ({ id })) as Row[];
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

/** A write of job `id`'s row (and `rows`); `null`: it may touch anyone's rows. */
function write(id: string, rows: string[] | null = [id]): GroupedWrite {
  return {
    id,
    statements: [{ sql: `UPDATE job SET x = $2 WHERE id = $1 RETURNING id`, params: [id, 1] }],
    rows: rows ? new Set(rows) : undefined,
  };
}

describe('WriteGroups', () => {
  it('writes that arrive while others commit go out together, each answered with its own rows', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    const first = groups.write(write('a'));
    const second = groups.write(write('b'));
    const waiting = ['c', 'd', 'e'].map((id) => groups.write(write(id)));
    await tick();
    // Two groups in flight (one each), the next three wait and then share one statement.
    expect(jobs.sent.map((s) => s.statements.length)).toEqual([1, 1]);
    await jobs.release();
    expect(jobs.sent.map((s) => s.statements.length)).toEqual([1, 1, 3]);
    expect(jobs.sent[2].finalSql).toBe(
      'SELECT * FROM s0 UNION ALL SELECT * FROM s1 UNION ALL SELECT * FROM s2',
    );
    await jobs.release();
    expect(await first).toEqual([{ id: 'a' }]);
    expect(await second).toEqual([{ id: 'b' }]);
    expect(await Promise.all(waiting)).toEqual([[{ id: 'c' }], [{ id: 'd' }], [{ id: 'e' }]]);
  });

  it('a write touching a row of a write in flight waits for it, and nothing behind it passes', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    void groups.write(write('parent', ['parent', 'child']));
    void groups.write(write('child'));
    void groups.write(write('other'));
    await tick();
    expect(jobs.sent.map((s) => s.statements[0].params[0])).toEqual(['parent']);
    await jobs.release();
    expect(jobs.sent.map((s) => s.statements.map((st) => st.params[0]))).toEqual([
      ['parent'],
      ['child', 'other'],
    ]);
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
    expect(jobs.sent.slice(2).map((s) => s.statements.length)).toEqual([1]);
    await jobs.release();
    expect(jobs.sent.slice(2).map((s) => s.statements.length)).toEqual([1, 1]);
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
    expect(jobs.sent).toHaveLength(1);
    await jobs.release();
    expect(jobs.sent.map((s) => s.statements[0].params[0])).toEqual(['a', 'w']);
    await jobs.release();
    expect(jobs.sent.map((s) => s.statements[0].params[0])).toEqual(['a', 'w', 'b']);
    await jobs.release();
    expect(await wake).toEqual([{ id: 'w' }]);
  });

  it('when a group fails, each of its writes is tried alone: only the bad one fails', async () => {
    const jobs = new HeldJobs();
    const groups = new WriteGroups(jobs);
    void groups.write(write('x'));
    void groups.write(write('y'));
    const outcomes = ['a', 'bad', 'c'].map((id) =>
      groups.write(write(id)).then(
        (rows) => rows,
        (error: Error) => error.message,
      ),
    );
    jobs.failWhen = (statements) => statements.some((s) => s.params[0] === 'bad');
    await jobs.release();
    for (let i = 0; i < 4; i++) await jobs.release();
    expect(await Promise.all(outcomes)).toEqual([[{ id: 'a' }], 'check constraint violated', [{ id: 'c' }]]);
    expect(jobs.sent.slice(2).map((s) => s.statements.length)).toEqual([3, 1, 1, 1]);
  });
});
