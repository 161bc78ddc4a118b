import { join } from 'node:path';
import { httpPortVariable } from '@flowmesh/contracts';
import { MeshChild, waitForReady } from '@flowmesh/cli';
import { freePort, REPO_ROOT, type TestMesh } from '@flowmesh/testing';

export type OrchestratorRole = 'service' | 'worker';

/** An orchestrator process (scheduler/API or worker) this test started itself, so it can SIGKILL and replace it. */
export interface OwnProcess {
  readonly name: string;
  readonly child: MeshChild;
  readonly url: string;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

const ENTRY = join(REPO_ROOT, 'services', 'flow-orchestrator', 'dist', 'main.js');

/**
 * Starts one more flow-orchestrator process on a running test mesh's prefix and database (the
 * same command and environment startMesh gives its own), and waits until it is ready.
 */
export async function startOrchestratorProcess(
  mesh: TestMesh,
  role: OrchestratorRole,
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
): Promise<OwnProcess> {
  const name = role === 'worker' ? 'flow-orchestrator-worker' : 'flow-orchestrator';
  const port = await freePort();
  const child = new MeshChild(
    {
      name,
      command: process.execPath,
      args: ['--enable-source-maps', ENTRY],
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
    },
    (line) => onLine?.(line),
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForReady(`${url}/readyz`, { timeoutMs: 90_000, exited: child.exited });
  return {
    name,
    child,
    url,
    kill: async () => {
      child.signal('SIGKILL');
      await child.exited;
    },
    stop: async () => {
      child.signal('SIGTERM');
      const timer = setTimeout(() => child.signal('SIGKILL'), 15_000);
      await child.exited;
      clearTimeout(timer);
    },
  };
}
