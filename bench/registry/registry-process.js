import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../services/resource-registry/dist/main.js', import.meta.url));
const READY = /"msg":"ready: /;

/**
 * The registry as it runs in a mesh: its own process (built `dist/main.js`), so the benchmark's
 * client and the service do not share an event loop. Resolves once it logs "ready", which it does
 * after every handler listens (its ping alone answers before the others subscribe).
 */
export async function startRegistryProcess(env) {
  // BENCH_NODE_ARGS: extra node flags for the registry (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Logs are JSON lines on stdout; kept to explain a failed start.
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise((resolve) => {
    const collect = (chunk) => {
      output += chunk;
      if (READY.test(output)) resolve(true);
    };
    child.stdout.setEncoding('utf8').on('data', collect);
    child.stderr.setEncoding('utf8').on('data', collect);
  });
  const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), 60_000).unref());
  const outcome = await Promise.race([ready, exited.then((code) => ({ code })), timeout]);
  if (outcome !== true) {
    child.kill('SIGKILL');
    const why =
      outcome === 'timeout'
        ? 'did not log "ready" within 60 s'
        : `exited with ${outcome.code} before it was ready`;
    throw new Error(`the registry ${why}:\n${output}`);
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
