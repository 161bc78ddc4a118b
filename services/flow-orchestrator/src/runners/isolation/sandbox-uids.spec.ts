import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseUidRange, SandboxUids, UID_BLOCK } from './sandbox-uids.js';

describe('parseUidRange', () => {
  const passwd = 'root:x:0:0::/root:/bin/sh\nnobody:x:65534:65534::/:/bin/false\n';

  it('takes first-last or off', () => {
    expect(parseUidRange('1879048192-1879113727', passwd)).toEqual({ first: 1879048192, last: 1879113727 });
    expect(parseUidRange(' off ', passwd)).toBe('off');
  });

  it('refuses what could hit anyone else, naming why', () => {
    expect(() => parseUidRange('60000-70000', passwd)).toThrow(/uid 65534 \(user nobody/);
    expect(() => parseUidRange('0-100', passwd)).toThrow(/within 1000-2147483646/);
    expect(() => parseUidRange('5000-5003', passwd)).toThrow(/holds no 16 uids/);
    expect(() => parseUidRange('5000', passwd)).toThrow(/not a range/);
  });
});

/** A range of its own (a block-aligned random spot above the default one) and lock directory. */
function testRange(blocks: number): { first: number; last: number } {
  const first = 1879113728 + Math.floor(Math.random() * 4096) * UID_BLOCK * 8;
  return { first, last: first + blocks * UID_BLOCK - 1 };
}

function uidsOf(pid: number): string | undefined {
  try {
    return /Uid:\s+(\d+)\s+(\d+)\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[0];
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Starts, as `uid`, a process that leaves its group and session (as a daemon would); its pid. */
async function daemonAs(uid: number): Promise<number> {
  const child = spawn('/bin/sh', ['-c', 'setsid sleep 300 & echo $!'], {
    uid,
    gid: uid,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const pid = await new Promise<number>((resolve) =>
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
  );
  await new Promise((resolve) => child.once('exit', resolve));
  return pid;
}

describe.runIf(process.getuid?.() === 0)('SandboxUids, on real processes', () => {
  const lockDir = mkdtempSync(join(tmpdir(), 'fm-uid-locks-'));
  const pools: SandboxUids[] = [];
  afterAll(() => {
    for (const pool of pools) pool.close();
    rmSync(lockDir, { recursive: true, force: true });
  });
  const claim = async (range: { first: number; last: number }, jobs: number): Promise<SandboxUids> => {
    const pool = await SandboxUids.claim({ range, jobs, lockDir });
    pools.push(pool);
    return pool;
  };

  it('gives two workers of one machine no uid in common, and refuses a third it cannot serve', async () => {
    const range = testRange(3);
    const [a, b] = [await claim(range, 20), await claim(range, 10)];
    const leased = async (pool: SandboxUids, n: number) =>
      Promise.all(Array.from({ length: n }, () => pool.lease()));
    const fromA = [a.sandboxUser.uid, ...(await leased(a, 20)).map((l) => l.user.uid)];
    const fromB = [b.sandboxUser.uid, ...(await leased(b, 10)).map((l) => l.user.uid)];
    expect(new Set([...fromA, ...fromB]).size).toBe(32);
    for (const uid of [...fromA, ...fromB]) {
      expect(uid).toBeGreaterThanOrEqual(range.first);
      expect(uid).toBeLessThanOrEqual(range.last);
    }
    await expect(claim(range, 10)).rejects.toThrow(/needs 1 blocks of 16 uids and found 0 free/);
  }, 60_000);

  it('kills every process of a uid before anyone gets it again; a job beyond the pool waits', async () => {
    const pool = await claim(testRange(1), 2);
    const first = await pool.lease();
    const second = await pool.lease();
    let third: number | undefined;
    const waiting = pool.lease().then((lease) => {
      third = lease.user.uid;
      return lease;
    });
    const daemon = await daemonAs(first.user.uid);
    expect(uidsOf(daemon)).toMatch(new RegExp(`\\s${first.user.uid}\\s+${first.user.uid}\\s`));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(third).toBeUndefined();
    const steps: string[] = [];
    await first.release((last) => {
      steps.push(`cleanup ${last} ${alive(daemon) ? 'alive' : 'dead'}`);
      return Promise.resolve();
    });
    expect(steps).toEqual(['cleanup true dead']);
    expect((await waiting).user.uid).toBe(first.user.uid);
    await second.release();
  }, 60_000);

  it('the jobs of one key share a uid while any runs, and get it back when it is still free', async () => {
    const pool = await claim(testRange(1), 4);
    const [one, two] = [await pool.lease('run-1'), await pool.lease('run-1')];
    expect(two.user.uid).toBe(one.user.uid);
    const daemon = await daemonAs(one.user.uid);
    await one.release((last) => Promise.resolve(expect(last).toBe(false)));
    expect(alive(daemon)).toBe(true);
    await two.release();
    expect(alive(daemon)).toBe(false);
    const other = await pool.lease();
    const again = await pool.lease('run-1');
    expect([again.user.uid, again.resumed]).toEqual([one.user.uid, true]);
    expect(other.user.uid).not.toBe(one.user.uid);
    const fresh = await pool.lease('run-2');
    expect(fresh.resumed).toBe(false);
  }, 60_000);

  it('when the worker lets them go, nothing runs under its uids', async () => {
    const pool = await SandboxUids.claim({ range: testRange(1), jobs: 2, lockDir });
    const lease = await pool.lease();
    const daemon = await daemonAs(lease.user.uid);
    // Still the daemon: alive, and as the leased uid (a pid reused by another process is not it).
    const runs = () => alive(daemon) && uidsOf(daemon)?.split(/\s+/)[1] === String(lease.user.uid);
    expect(runs()).toBe(true);
    pool.close();
    const deadline = Date.now() + 60_000;
    while (runs() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runs()).toBe(false);
  }, 120_000);
});
