import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pingContract } from '@flowmesh/contracts';

const MAIN = fileURLToPath(new URL('../../services/resource-registry/dist/main.js', import.meta.url));

/**
 * The registry as it runs in a mesh: its own process (built `dist/main.js`), so the benchmark's
 * client and the service do not share an event loop. Resolves once it answers its ping.
 */
export async function startRegistryProcess(env, client) {
  // BENCH_NODE_ARGS: extra node flags for the registry (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  // Logs are JSON lines on stdout; kept to explain a failed start.
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const code = await Promise.race([
      exited,
      new Promise((resolve) => setTimeout(() => resolve(undefined), 200)),
    ]);
    if (code !== undefined)
      throw new Error(`the registry exited with ${code} before it was ready:\n${stderr}`);
    const up = await client.request(pingContract('resource-registry'), {}, { timeoutMs: 500 }).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline)
      throw new Error(`the registry did not answer its ping within 60 s:\n${stderr}`);
  }
  return {
    pid: child.pid,
    /** CPU time (user + system) the registry process has used so far, in ms (Linux /proc). */
    cpuMs: () => processCpuMs(child.pid),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const CLOCK_TICKS_PER_SECOND = 100;

function processCpuMs(pid) {
  try {
    // Fields after the command name (which may hold spaces): utime is the 12th, stime the 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}
