import { jobLogStatement } from '../../store/job.store.js';
import type { SqlStatement } from '../../store/sql-batch.js';

/**
 * A running job's output, line by line. A quick job's lines are written with its result (no
 * extra write); a job running longer than `liveAfterMs` writes what it printed every
 * `liveAfterMs`, so its logs are readable while it runs.
 */
export class LogBuffer {
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly jobId: string,
    private readonly write: (statement: SqlStatement) => Promise<void>,
    private readonly liveAfterMs: number,
  ) {}

  readonly push = (line: string): void => {
    this.pending.push(line.endsWith('\n') ? line : `${line}\n`);
    this.timer ??= setTimeout(() => this.flushLive(), this.liveAfterMs);
  };

  /** Stops live writes; the rest, as a statement to commit with the job's result. */
  async close(): Promise<SqlStatement | undefined> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    return this.takeStatement();
  }

  private flushLive(): void {
    this.timer = undefined;
    const statement = this.takeStatement();
    if (!statement) return;
    this.flushing = this.flushing.then(() => this.write(statement)).catch(() => undefined);
    if (this.pending.length === 0) this.timer = setTimeout(() => this.flushLive(), this.liveAfterMs);
  }

  private takeStatement(): SqlStatement | undefined {
    if (this.pending.length === 0) return undefined;
    const chunk = this.pending.join('');
    this.pending = [];
    return jobLogStatement(this.jobId, chunk);
  }
}
