import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { testRunEnv } from '../infra/test-run-env.js';
import { ensureBuilt, REPO_ROOT } from './ensure-built.js';

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunCliOptions {
  /** The whole environment of the CLI process (nothing is inherited but PATH and the run's mark). */
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  readonly cwd?: string;
}

/** Runs the built `flowmesh` CLI as a user would and collects what it printed. */
export async function runFlowmesh(args: readonly string[], options: RunCliOptions = {}): Promise<CliResult> {
  ensureBuilt();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'cli', 'bin', 'flowmesh.js'), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...testRunEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timeoutMs = options.timeoutMs ?? 120_000;
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL')
        reject(new Error(`flowmesh ${args.join(' ')} ran longer than ${timeoutMs} ms:\n${stdout}${stderr}`));
      else resolve({ code, signal, stdout, stderr });
    });
  });
}
