import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { httpPortVariable, MESH_PROCESSES, type MeshProcess } from '@flowmesh/contracts';
import { REPO_ROOT } from './ensure-built.js';
import { withFreePorts } from './free-port.js';
import type { TestMesh } from './start-mesh.js';

/** A mesh process this test started itself, so it can SIGKILL and replace it. */
export interface OwnProcess {
  readonly name: string;
  readonly pid: number | undefined;
  readonly url: string;
  kill(): Promise<void>;
  stop(): Promise<void>;
  /**
   * SIGTERM, then how it exited: its own graceful stop decides (SIGKILL only if it is still there
   * after `killAfterMs`, 60 s, which the exit then shows).
   */
  terminate(killAfterMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts one more process of the mesh (a name of MESH_PROCESSES: `agent-runtime`,
 * `flow-orchestrator-worker`, ...) on a running test mesh's prefix and database, with the command
 * and environment startMesh gives its own (`node dist/main.js`, FLOWMESH_ROLE, an HTTP port), and
 * waits until its /readyz answers. Started again on another port if its port was taken meanwhile.
 */
export async function startOwnProcess(
  mesh: TestMesh,
  name: string,
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
  options: OwnProcessOptions = {},
): Promise<OwnProcess> {
  const meshProcess = MESH_PROCESSES.find((p) => p.name === name);
  if (!meshProcess) throw new Error(`${name} is not a mesh process`);
  return withFreePorts(1, ([port]) => startOn(mesh, meshProcess, port, env, onLine, options));
}

export interface OwnProcessOptions {
  /** A command that runs Node for it (`setpriv --bounding-set ... --`, as a container would). */
  readonly launcher?: readonly string[];
}

async function startOn(
  mesh: TestMesh,
  meshProcess: MeshProcess,
  port: number,
  env: NodeJS.ProcessEnv,
  onLine: ((line: string) => void) | undefined,
  { launcher = [] }: OwnProcessOptions,
): Promise<OwnProcess> {
  const { name, role } = meshProcess;
  const node = [
    process.execPath,
    '--enable-source-maps',
    join(REPO_ROOT, 'services', meshProcess.service, 'dist', 'main.js'),
  ];
  const [command, ...args] = [...launcher, ...node];
  const child = spawn(command, args, {
    env: {
      ...process.env,
      ...env,
      ...mesh.env,
      NODE_OPTIONS: '',
      FLOWMESH_SHUTDOWN_TIMEOUT_MS: '10000',
      FLOWMESH_ROLE: role,
      FLOWMESH_HTTP_HOST: '127.0.0.1',
      [httpPortVariable(name)]: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exit: string | undefined;
  let exitStatus: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };
  const exited = new Promise<void>((resolve) =>
    child.once('close', (code, signal) => {
      exit = signal ?? `code ${String(code)}`;
      exitStatus = { code, signal };
      resolve();
    }),
  );
  /** The last lines of output, for the error when it does not start. */
  const recent: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        recent.push(line);
        if (recent.length > 20) recent.shift();
        onLine?.(`[${name}] ${line}`);
      }
    });
  }
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (exit) throw new Error(`${name} exited before it was ready (${exit}):\n${recent.join('\n')}`);
    const ready = await fetch(`${url}/readyz`).then(
      async (response) => {
        await response.body?.cancel();
        return response.ok;
      },
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} was not ready within 150 s`);
    }
    // The pause between probes of a bounded wait for readiness.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    name,
    pid: child.pid,
    url,
    kill: async () => {
      if (!exit) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (exit) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
    terminate: async (killAfterMs = 60_000) => {
      if (!exit) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        await exited;
        clearTimeout(timer);
      }
      return exitStatus;
    },
  };
}

/**
 * Whether a process with this pid still runs: signal 0 reaches it and, where `/proc` says, it is
 * not a zombie (a killed orphan waits there until init reaps it, which here can take seconds).
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // `pid (comm) S ...`: the state follows the last parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
