import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { LogLineSink } from '../../ports/script-runner.port.js';
import { jobErrors } from '../job-errors.js';
import { NO_SANDBOX, sandboxLaunch, type ScriptSandbox } from '../isolation/script-sandbox.js';
import { jobOwnerEnv } from './orphan-reaper.js';

export interface SubprocessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Address-space limit (`ulimit -v`) of the process and what it starts. */
  readonly memoryMb: number;
  /**
   * False for a runtime that reserves far more address space than it uses (V8) and limits its
   * own heap instead (its flags in `args`).
   */
  readonly limitAddressSpace?: boolean;
  /** Who the process runs as, with which network (default: the worker's user and network). */
  readonly sandbox?: ScriptSandbox;
  readonly onLog: LogLineSink;
  readonly signal?: AbortSignal;
  /** Written to fd 3 of the child, then closed (the job's arguments). */
  readonly input?: string;
  /** fd 4 of the child is read, up to this many bytes (the job's result); more is reported as overflow. */
  readonly resultLimitBytes?: number;
}

export interface SubprocessOutcome {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** What the child wrote to fd 4, when asked for. */
  readonly result: string;
  /** fd 4 went over `resultLimitBytes`: `result` is cut, `resultBytes` counts all of it. */
  readonly resultOverflow: boolean;
  readonly resultBytes: number;
  /** The last lines of stdout, and of stdout and stderr together (for error messages). */
  readonly lastStdoutLine: string | undefined;
  readonly tail: readonly string[];
}

const TAIL_LINES = 20;

/**
 * Runs a job's process: its own process group (so a time limit or a cancel kills everything it
 * started), an address-space limit set by the shell before `exec`, stdout and stderr passed to
 * the job's log line by line as they are written. Rejects with `Timeout` or `Canceled`; any exit
 * is an outcome for the runner to judge.
 */
export function runSubprocess(spec: SubprocessSpec): Promise<SubprocessOutcome> {
  if (spec.signal?.aborted) return Promise.reject(jobErrors.canceled());
  const limitKb = Math.max(1, Math.floor(spec.memoryMb * 1024));
  // `sh` sets the limit on itself, then becomes the job's command: no extra process stays. Its
  // umask 0 keeps files shareable between a flow's steps as when every job ran as one user (each
  // job has a uid of its own now): what a job creates outside its private directory, any job may
  // read and write, as in Windmill.
  const shell =
    spec.limitAddressSpace === false ? 'umask 0 && exec "$@"' : 'umask 0 && ulimit -v "$0" && exec "$@"';
  const [command, args] = ['/bin/sh', ['-c', shell, String(limitKb), spec.command, ...spec.args]];
  const launch = sandboxLaunch(spec.sandbox ?? NO_SANDBOX, command, args);
  const child = spawn(launch.command, launch.args, {
    cwd: spec.cwd,
    ...(launch.uid !== undefined ? { uid: launch.uid, gid: launch.gid } : {}),
    // The worker's mark: its watchdog kills what carries it when the worker dies.
    env: { ...spec.env, ...jobOwnerEnv() },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  return new Promise<SubprocessOutcome>((resolve, reject) => {
    let settled = false;
    let result = '';
    let resultBytes = 0;
    let resultOverflow = false;
    let lastStdoutLine: string | undefined;
    const tail: string[] = [];
    const remember = (line: string): void => {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    };
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const stop = (error: Error): void => {
      if (settled) return;
      settled = true;
      cleanup();
      kill();
      reject(error);
    };
    const timer = setTimeout(() => stop(jobErrors.timeout(spec.timeoutMs)), spec.timeoutMs);
    const onAbort = (): void => stop(jobErrors.canceled());
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    const cleanup = (): void => {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
    };

    let closedStreams = 0;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const maybeDone = (): void => {
      if (settled || !exit || closedStreams < 3) return;
      settled = true;
      cleanup();
      resolve({
        exitCode: exit.code,
        signal: exit.signal,
        result,
        resultOverflow,
        resultBytes,
        lastStdoutLine,
        tail,
      });
    };
    const readLines = (stream: Readable, which: 'stdout' | 'stderr'): void => {
      let partial = '';
      stream.setEncoding('utf8');
      const emit = (line: string): void => {
        const clean = line.endsWith('\r') ? line.slice(0, -1) : line;
        if (which === 'stdout' && clean.trim() !== '') lastStdoutLine = clean;
        remember(clean);
        spec.onLog(clean);
      };
      stream.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) emit(line);
      });
      stream.on('close', () => {
        if (partial) emit(partial);
        closedStreams += 1;
        maybeDone();
      });
    };
    readLines(child.stdio[1] as Readable, 'stdout');
    readLines(child.stdio[2] as Readable, 'stderr');
    const resultStream = child.stdio[4] as Readable;
    resultStream.setEncoding('utf8');
    resultStream.on('data', (chunk: string) => {
      resultBytes += Buffer.byteLength(chunk);
      if (spec.resultLimitBytes !== undefined && resultBytes > spec.resultLimitBytes) resultOverflow = true;
      else result += chunk;
    });
    resultStream.on('close', () => {
      closedStreams += 1;
      maybeDone();
    });
    const inputStream = child.stdio[3] as Writable;
    // A script that never reads its arguments closes the pipe: not an error.
    inputStream.on('error', () => undefined);
    inputStream.end(spec.input ?? '');
    child.on('error', (error) => stop(error));
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Children the job left behind must not outlive it (or hold its pipes open).
      kill();
      maybeDone();
    });
  });
}
