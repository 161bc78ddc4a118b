import { chownSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobFailure as failure, scriptJobs } from '../script-job.fixture.js';
import { TypeScriptRunner } from '../typescript/typescript.runner.js';
import type { ScriptSandbox } from './script-sandbox.js';
import { SandboxedThreadJobs } from './sandboxed-thread-jobs.js';

/**
 * TypeScript jobs in the thread sandbox, a real process started as `nobody` (root only: a worker
 * that is not root cannot switch users).
 */
const job = scriptJobs('bun', { timeoutMs: 20_000, memoryMb: 128 });
const NOBODY = { name: 'nobody', uid: 65534, gid: 65534 };
const POOL = {
  warmThreads: 1,
  defaultMemoryMb: 128,
  jobsPerThread: 1_000,
  coreThreads: 2,
  maxThreads: 4,
  idleMs: 5_000,
  maxResultBytes: 64 * 1024,
};

function sandboxed(
  sandbox: ScriptSandbox,
  workdir = ownedDir(),
): { runner: TypeScriptRunner; threads: SandboxedThreadJobs } {
  const threads = new SandboxedThreadJobs({
    ...POOL,
    sandbox,
    path: process.env.PATH ?? '/usr/bin:/bin',
    workdir,
    onOutput: () => undefined,
  });
  return { runner: new TypeScriptRunner(POOL, undefined, threads), threads };
}

function ownedDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fm-sandbox-'));
  chownSync(dir, NOBODY.uid, NOBODY.gid);
  return dir;
}

const PROBE = `
import { readFileSync } from 'node:fs';
export function main() {
  const status = readFileSync('/proc/self/status', 'utf8');
  const env = readFileSync('/proc/self/environ', 'utf8').split('\\0').filter(Boolean).map((v) => v.split('=')[0]);
  console.log('probing');
  return { uid: Number(/^Uid:\\s+(\\d+)/m.exec(status)?.[1]), env };
}`;

describe.runIf(process.getuid?.() === 0)('SandboxedThreadJobs', () => {
  const { runner, threads } = sandboxed({ user: NOBODY, network: 'host' });

  beforeAll(async () => {
    runner.start();
    await threads.ready();
  }, 60_000);

  afterAll(async () => {
    await runner.close();
  });

  it('runs a job as the sandbox user, with none of the worker variables, its log and start reported', async () => {
    const lines: string[] = [];
    let started = 0;
    const result = (await runner.run(job(PROBE), (line) => lines.push(line), {
      onStart: () => (started += 1),
    })) as {
      uid: number;
      env: string[];
    };
    expect(result.uid).toBe(65534);
    expect(result.env.sort()).toEqual(
      [
        'FLOWMESH_JOB_OWNER',
        'HOME',
        'LANG',
        'NODE_CHANNEL_FD',
        'NODE_CHANNEL_SERIALIZATION_MODE',
        'PATH',
        'TMPDIR',
      ].sort(),
    );
    expect(lines).toEqual(['probing']);
    expect(started).toBe(1);
    await expect(
      runner.run(job('export const main = (a: number) => a + 1', { args: { a: 41 } }), () => {}),
    ).resolves.toBe(42);
  });

  it('stops a job at its time limit and on cancel, keeping errors named as in a worker thread', async () => {
    const timeout = await failure(
      runner.run(job('export async function main() { for (;;) {} }', { timeoutMs: 500 }), () => {}),
    );
    expect(timeout.name).toBe('Timeout');
    const controller = new AbortController();
    const canceled = failure(
      runner.run(job('export async function main() { await new Promise(() => {}) }'), () => {}, {
        signal: controller.signal,
        onStart: () => setTimeout(() => controller.abort(), 50),
      }),
    );
    expect((await canceled).name).toBe('Canceled');
    const thrown = await failure(
      runner.run(job('export function main() { throw new TypeError("bad input") }'), () => {}),
    );
    expect([thrown.name, thrown.message]).toEqual(['TypeError', 'bad input']);
  });

  it('fails the jobs of a sandbox that dies, and starts another for the next', async () => {
    const child = await threads.ready();
    const running = failure(
      runner.run(job('export async function main() { await new Promise(() => {}) }'), () => {}, {
        onStart: () => child.kill('SIGKILL'),
      }),
    );
    const error = await running;
    expect(error.name).toBe('ExecutionErr');
    expect(error.message).toMatch(/the script sandbox was killed by SIGKILL while the job ran/);
    await expect(runner.run(job('export const main = () => "again"'), () => {})).resolves.toBe('again');
    expect((await threads.ready()).pid).not.toBe(child.pid);
  });
});

describe.runIf(process.getuid?.() === 0)('SandboxedThreadJobs: network and start', () => {
  const CONNECT = `
import { connect } from 'node:net';
export function main(port: number) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve('connected'); });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
  });
}`;
  const nats = Number(new URL(process.env.NATS_URL ?? 'nats://127.0.0.1:4222').port || 4222);

  it('without network a job reaches nothing on the machine (NATS, PostgreSQL); on the host network it does', async () => {
    const none = sandboxed({ user: NOBODY, network: 'none' });
    const host = sandboxed({ user: NOBODY, network: 'host' });
    try {
      for (const port of [nats, 5432]) {
        await expect(none.runner.run(job(CONNECT, { args: { port } }), () => {})).resolves.toBe(
          'ENETUNREACH',
        );
      }
      await expect(host.runner.run(job(CONNECT, { args: { port: nats } }), () => {})).resolves.toBe(
        'connected',
      );
    } finally {
      await Promise.all([none.runner.close(), host.runner.close()]);
    }
  }, 60_000);

  it('a sandbox that cannot start says why', async () => {
    const { threads } = sandboxed({ user: NOBODY, network: 'host' }, '/nonexistent/flowmesh');
    await expect(threads.ready()).rejects.toThrow(/the script sandbox could not start: .*ENOENT/);
  });
});
