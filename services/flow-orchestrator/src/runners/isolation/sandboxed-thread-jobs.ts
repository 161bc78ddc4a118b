import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { JobError, type LogLineSink, type ScriptRunOptions } from '../../ports/script-runner.port.js';
import { jobErrors } from '../job-errors.js';
import { jobOwnerEnv } from '../process/orphan-reaper.js';
import type {
  ThreadJobRequest,
  ThreadJobsOptions,
  ThreadStats,
  TypeScriptThreads,
} from '../typescript/thread-jobs.js';
import { sandboxLaunch, type ScriptSandbox } from './script-sandbox.js';
import type { SandboxInbound, SandboxOutbound } from './thread-sandbox.protocol.js';

const FROM_SOURCES = import.meta.url.endsWith('.ts');
const ENTRY = new URL(`./thread-sandbox.main${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url);

/** How long the sandbox may take to start (a loaded machine starts Node in seconds). */
const READY_TIMEOUT_MS = 60_000;
/** How long a closing sandbox may take to stop its threads before it is killed. */
const CLOSE_TIMEOUT_MS = 5_000;

export interface ThreadSandboxOptions extends ThreadJobsOptions {
  readonly sandbox: ScriptSandbox;
  /** PATH of the sandbox (the worker's own environment is not passed on). */
  readonly path: string;
  /** Its working directory and home: the sandbox's user's own. */
  readonly workdir: string;
  /** Where what the sandbox process itself prints goes (not jobs' output: that is their log). */
  readonly onOutput: (line: string) => void;
}

interface Pending {
  readonly onLog: LogLineSink;
  readonly options: ScriptRunOptions;
  readonly resolve: (json: string) => void;
  readonly reject: (error: Error) => void;
}

/**
 * TypeScript jobs on the warm threads of a sandbox process (`thread-sandbox.main.ts`) instead of
 * the worker's: the process runs as the sandbox's user, with no variable of the worker, so a
 * script cannot read the worker's database URL, NATS credentials or tokens, neither from its
 * environment nor from `/proc`. Jobs go over the IPC channel (a round trip of ~0.1 ms). A
 * sandbox that dies fails the jobs it ran and is started again for the next.
 */
export class SandboxedThreadJobs implements TypeScriptThreads {
  private child?: Promise<ChildProcess>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private lastStats: ThreadStats = { threads: 0, waiting: 0 };
  private closed = false;

  constructor(private readonly options: ThreadSandboxOptions) {}

  start(): void {
    void this.ready().catch(() => undefined);
  }

  /** The running sandbox, started when there is none; rejects when it cannot start. */
  ready(): Promise<ChildProcess> {
    if (this.closed) return Promise.reject(new Error('the script sandbox is closed'));
    this.child ??= this.launch();
    return this.child;
  }

  stats(): ThreadStats {
    return this.lastStats;
  }

  async run(request: ThreadJobRequest, onLog: LogLineSink, options: ScriptRunOptions = {}): Promise<string> {
    const { signal } = options;
    if (signal?.aborted) throw jobErrors.canceled();
    const child = await this.ready();
    if (signal?.aborted) throw jobErrors.canceled();
    const id = ++this.nextId;
    return new Promise<string>((resolve, reject) => {
      const onAbort = (): void => this.send(child, { type: 'cancel', id });
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        onLog,
        options,
        resolve: (json) => {
          done();
          resolve(json);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      if (!child.connected) {
        this.pending
          .get(id)
          ?.reject(new JobError('ExecutionErr', 'the script sandbox exited before the job could start'));
        this.pending.delete(id);
        return;
      }
      this.send(child, { type: 'run', id, request });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = await this.child?.catch(() => undefined);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.send(child, { type: 'close' });
    const timer = setTimeout(() => child.kill('SIGKILL'), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  private launch(): Promise<ChildProcess> {
    // The rest of the options are the pool's, which the sandbox builds.
    const { sandbox, path, workdir, onOutput: _onOutput, ...poolOptions } = this.options;
    const nodeArgs = [
      // Run from sources (tests), the sandbox's own files need more than type stripping.
      ...(FROM_SOURCES ? ['--experimental-transform-types', '--disable-warning=ExperimentalWarning'] : []),
      fileURLToPath(ENTRY),
      JSON.stringify(poolOptions),
    ];
    const launch = sandboxLaunch(sandbox, process.execPath, nodeArgs);
    const child = spawn(launch.command, launch.args, {
      cwd: workdir,
      // Only what Node needs: no variable of the worker reaches the sandbox.
      env: { PATH: path, HOME: workdir, TMPDIR: workdir, LANG: 'C.UTF-8', ...jobOwnerEnv() },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // A group of its own: the worker's watchdog kills the sandbox with its group, which must not
      // be the worker's (nor whatever started the worker).
      detached: true,
      serialization: 'advanced',
      ...(launch.uid !== undefined ? { uid: launch.uid, gid: launch.gid } : {}),
    });
    const output: string[] = [];
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) {
          if (!line) continue;
          output.push(line);
          if (output.length > 10) output.shift();
          this.options.onOutput(line);
        }
      });
    }
    return new Promise<ChildProcess>((resolve, reject) => {
      let started = false;
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the script sandbox did not start within ${READY_TIMEOUT_MS / 1000} s`));
      }, READY_TIMEOUT_MS);
      child.on('message', (message: SandboxOutbound) => {
        if (message.type === 'ready') {
          started = true;
          clearTimeout(timer);
          resolve(child);
        } else this.onMessage(message);
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        // A spawn that failed has no exit to come: the next job tries again.
        if (!started) this.child = undefined;
        reject(new Error(`the script sandbox could not start: ${error.message}`));
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        const said = output.length > 0 ? `: ${output.slice(-5).join(' | ')}` : '';
        if (!started) reject(new Error(`the script sandbox ${how} as it started${said}`));
        // The next job starts another; the jobs it ran end with it.
        this.child = undefined;
        for (const [id, pending] of this.pending) {
          this.pending.delete(id);
          pending.reject(new JobError('ExecutionErr', `the script sandbox ${how} while the job ran`));
        }
      });
    });
  }

  private onMessage(message: SandboxOutbound): void {
    if (message.type === 'ready') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    switch (message.type) {
      case 'start':
        pending.options.onStart?.();
        return;
      case 'log':
        pending.onLog(message.line);
        return;
      case 'preprocessed':
        pending.options.onPreprocessed?.(message.args);
        return;
      case 'done':
        this.pending.delete(message.id);
        this.lastStats = message.stats;
        pending.resolve(message.json);
        return;
      case 'failed':
        this.pending.delete(message.id);
        this.lastStats = message.stats;
        pending.reject(new JobError(message.error.name, message.error.message, message.error.stack));
        return;
    }
  }

  private send(child: ChildProcess, message: SandboxInbound): void {
    // A sandbox that just died fails its jobs through its exit.
    if (child.connected) child.send(message);
  }
}
