// Child processes of the gateway benchmark: each server runs in its own process, so the load
// generator (this process) never shares an event loop with what it measures.
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A script of this folder in its own process that reports its port; resolves once it listens. */
export function startScript(file, args = []) {
  const child = fork(fileURLToPath(new URL(file, import.meta.url)), args, { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', ({ port }) => resolve({ child, url: `http://127.0.0.1:${port}` }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

/** The fake provider. */
export const startFakeUpstream = () => startScript('./fake-upstream.js');

/** A node process; the end of its output is kept for the error message if it fails to come up. */
export function startProcess(name, args, env) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (part) => (output = (output + part).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.describe = () => `${name} (pid ${child.pid}) output:\n${output}`;
  return child;
}

/** Polls `url` until it answers 2xx (or the process dies, or 60 s pass). */
export async function waitUntilUp(child, url) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited early: ${child.describe()}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`not up after 60 s: ${child.describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** CPU time a process used so far (user + system), in ms (Linux, 10 ms ticks). */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Resident memory of a process, in MiB (Linux). */
export function rssMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
}

export function stopProcess(child) {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}
