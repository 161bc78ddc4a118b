import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpPortVariable, MESH_PROCESSES } from '@flowmesh/contracts';
import { MeshChild } from '@flowmesh/cli';
import { connectMesh } from '@flowmesh/messaging';
import {
  childrenOf,
  ensureBuilt,
  REPO_ROOT,
  startFakeOpenAI,
  testRunEnv,
  testSubjectPrefix,
  waitFor,
  withFreePorts,
  withTestDatabase,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A step that tries the mesh's NATS without credentials, the users' files and every environment. */
const SNOOP = `
import { connect } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
export async function main(port: number, dir: string) {
  const nats = await new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let seen = '';
    let sent = false;
    socket.on('data', (chunk) => {
      seen += chunk;
      if (!sent && seen.includes('\\r\\n')) {
        sent = true;
        socket.write('CONNECT {"verbose":false}\\r\\nPING\\r\\n');
      }
      const answer = seen.split('\\r\\n').find((line) => line.startsWith('-ERR') || line === 'PONG');
      if (answer) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('error', (error) => resolve(String(error)));
  });
  let users = 'readable';
  try {
    readdirSync(dir);
  } catch (error) {
    users = (error as NodeJS.ErrnoException).code ?? String(error);
  }
  const environs: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\\d+$/.test(p))) {
    try {
      if (/(^|\\0)(NATS_URL|DATABASE_URL)=/.test(readFileSync('/proc/' + pid + '/environ', 'utf8'))) environs.push(pid);
    } catch {}
  }
  return { nats, users, environs };
}`;

/**
 * `flowmesh start` with NATS_URL unset: it runs a nats-server of its own that admits only the
 * mesh's users, each process logging in as itself. Run in a directory of its own, so its
 * `.flowmesh/` (users, JetStream data) is the test's.
 */
describe('flowmesh start with its own authenticated NATS', () => {
  const database = withTestDatabase('startauth');
  const prefix = testSubjectPrefix('startauth');
  const workDir = mkdtempSync(join(tmpdir(), 'fm-e2e-nats-auth-'));

  beforeAll(() => {
    mkdirSync(join(workDir, 'examples', 'flows'), { recursive: true });
    for (const example of ['hello.yaml', 'agent.yaml'])
      copyFileSync(
        join(REPO_ROOT, 'examples', 'flows', example),
        join(workDir, 'examples', 'flows', example),
      );
    return ensureBuilt();
  }, 300_000);

  afterAll(async () => {
    await database.drop().catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  });

  it('gives each process its own NATS user, refuses anyone else, and runs the examples', async () => {
    // The agent example crosses most of the mesh: agent-runtime, the gateway (its token stream,
    // a secret interpolated by the registry), the orchestrator and its worker.
    const llm = await startFakeOpenAI({ apiKey: 'sk-example' });
    llm.setDefaultReply({ text: '19 plus 23 is 42.' });
    const mesh = await withFreePorts(
      3 + MESH_PROCESSES.length,
      async ([entryPort, natsPort, grpcPort, ...ports]) => {
        const lines: string[] = [];
        const child = new MeshChild(
          {
            name: 'flowmesh',
            command: process.execPath,
            args: [join(REPO_ROOT, 'cli', 'bin', 'flowmesh.js'), 'start'],
            cwd: workDir,
            // No NATS_URL: the mesh runs its own server.
            env: {
              PATH: process.env.PATH ?? '',
              ...testRunEnv(),
              DATABASE_URL: database.url,
              FLOWMESH_SUBJECT_PREFIX: prefix,
              FLOWMESH_HTTP_PORT: String(entryPort),
              FLOWMESH_LOCAL_NATS_PORT: String(natsPort),
              FLOWMESH_GRPC_PORT: String(grpcPort),
              FLOWMESH_EXAMPLE_LLM_URL: `${llm.url}/v1`,
              FLOWMESH_EXAMPLE_LLM_KEY: 'sk-example',
              FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
              ...Object.fromEntries(
                MESH_PROCESSES.map((p, i) => [httpPortVariable(p.name), String(ports[i])]),
              ),
            },
          },
          (line) => lines.push(line),
        );
        await waitFor(
          () => lines.some((line) => line.startsWith('flowmesh: mesh ready:')) || !child.running,
          {
            timeoutMs: 180_000,
            description: 'flowmesh start to report the mesh ready',
          },
        );
        if (!child.running)
          throw new Error(`flowmesh start ended before the mesh was ready:\n${lines.join('\n')}`);
        return {
          child,
          lines,
          natsUrl: `nats://127.0.0.1:${natsPort}`,
          natsPort,
          entryUrl: `http://127.0.0.1:${entryPort}`,
        };
      },
    ).catch(async (error: unknown) => {
      await llm.close();
      throw error;
    });

    try {
      const output = mesh.lines.join('\n');
      for (const p of MESH_PROCESSES)
        expect(output).toMatch(new RegExp(`^${p.name}\\s+0\\.1\\.0\\s+up\\s`, 'm'));
      expect(output).toContain('flowmesh: example examples/flows/hello.yaml returned "Hello, world!"');
      expect(output).toContain('flowmesh: example examples/flows/agent.yaml returned');
      expect(output).toContain('19 plus 23 is 42.');
      // The server logs every refused publish or subscription ("Publish Violation - User ...").
      expect(output).not.toMatch(/Violation/i);

      // The users' secrets are readable by their owner only.
      const authDir = join(workDir, '.flowmesh', 'nats-auth');
      expect(statSync(authDir).mode & 0o777).toBe(0o700);
      for (const file of readdirSync(authDir)) expect(statSync(join(authDir, file)).mode & 0o777).toBe(0o600);
      const passwordOf = (user: string) => readFileSync(join(authDir, `${user}.password`), 'utf8').trim();

      // Each process holds its own credentials and no other process's.
      const children = childrenOf(mesh.child.pid ?? 0).filter((c) => c.args.includes('main.js'));
      expect(children).toHaveLength(MESH_PROCESSES.length);
      for (const c of children) {
        const environ = readFileSync(`/proc/${c.pid}/environ`, 'utf8').split('\0');
        const natsUrl = new URL(environ.find((v) => v.startsWith('NATS_URL='))!.slice('NATS_URL='.length));
        const own = MESH_PROCESSES.find((p) => p.name === natsUrl.username);
        expect(own, c.args).toBeDefined();
        expect(natsUrl.password).toBe(passwordOf(natsUrl.username));
        for (const other of MESH_PROCESSES.filter((p) => p.name !== natsUrl.username))
          expect(environ.join('\n')).not.toContain(passwordOf(other.name));
      }
      expect(new Set(children.map((c) => envNatsUser(c.pid))).size).toBe(MESH_PROCESSES.length);

      // Anyone else, a script of the worker's included, is refused; the worker may not read everything.
      await expect(connectMesh({ url: mesh.natsUrl, name: 'snoop', prefix })).rejects.toThrow(
        /Authorization Violation/i,
      );
      const worker = await connectMesh({
        url: mesh.natsUrl.replace(
          '//',
          `//flow-orchestrator-worker:${passwordOf('flow-orchestrator-worker')}@`,
        ),
        name: 'flow-orchestrator-worker',
        prefix,
      });
      try {
        const refusal = await new Promise<string>((resolve) =>
          worker.nc.subscribe('>', { callback: (error) => error && resolve(error.message) }),
        );
        expect(refusal).toMatch(/permissions violation/i);
      } finally {
        await worker.drain();
      }

      // A script the worker runs has nothing to log in with either: it runs as the sandbox's user,
      // reads no process's environment and none of the users' files, and NATS refuses it.
      const token = readFileSync(join(workDir, '.flowmesh', 'admin-token'), 'utf8').trim();
      const response = await fetch(`${mesh.entryUrl}/api/w/main/jobs/run_wait_result/preview_flow`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          value: {
            modules: [
              {
                id: 'snoop',
                value: {
                  type: 'rawscript',
                  language: 'bun',
                  content: SNOOP,
                  input_transforms: {
                    port: { type: 'static', value: mesh.natsPort },
                    dir: { type: 'static', value: authDir },
                  },
                },
              },
            ],
          },
          args: {},
        }),
      });
      const snooped = (await response.json()) as { nats: string; users: string; environs: string[] };
      expect(response.status, JSON.stringify(snooped)).toBe(200);
      expect(snooped.nats).toMatch(/^-ERR 'Authorization Violation'/);
      expect(snooped.users).toBe('EACCES');
      expect(snooped.environs).toEqual([]);

      // Its nats-server is supervised as the services are: killed, it is restarted on the same
      // port and storage, every process says once that it lost NATS and once that it is back,
      // and the mesh serves again (an authenticated request crosses the registry over NATS).
      const natsServer = childrenOf(mesh.child.pid ?? 0).find((c) => /nats-server/.test(c.args));
      expect(natsServer, 'the nats-server flowmesh start runs').toBeDefined();
      process.kill(natsServer!.pid, 'SIGKILL');
      await waitFor(() => mesh.lines.some((line) => line.startsWith('flowmesh: nats-server is back')), {
        timeoutMs: 60_000,
        description: 'flowmesh start to restart its nats-server',
      });
      expect(mesh.lines).toContainEqual(
        expect.stringMatching(
          /^flowmesh: nats-server stopped unexpectedly \(killed by SIGKILL\); restarting it in 1 s/,
        ),
      );
      const hello = await waitFor(
        async () => {
          const answer = await fetch(`${mesh.entryUrl}/api/w/main/jobs/run_wait_result/preview_flow`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              value: {
                modules: [
                  {
                    id: 'a',
                    value: {
                      type: 'rawscript',
                      language: 'bun',
                      content: "export function main() { return 'back'; }",
                      input_transforms: {},
                    },
                  },
                ],
              },
              args: {},
            }),
          });
          return answer.status === 200 ? answer.json() : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 500, description: 'a flow to run after the NATS restart' },
      );
      expect(hello).toBe('back');
      await waitFor(
        () =>
          mesh.lines.filter((line) => /NATS connection back after \d/.test(line)).length >=
          MESH_PROCESSES.length,
        { timeoutMs: 60_000, description: 'every process to say it has NATS back' },
      );
      expect(mesh.lines.filter((line) => /NATS connection lost \(/.test(line))).toHaveLength(
        MESH_PROCESSES.length,
      );
      expect(mesh.lines.filter((line) => /NATS connection back after \d/.test(line))).toHaveLength(
        MESH_PROCESSES.length,
      );
    } finally {
      mesh.child.signal('SIGTERM');
      await llm.close();
    }
    expect(await mesh.child.exited).toEqual({ code: 0, signal: null });
    expect(mesh.lines.at(-1)).toBe('flowmesh: stopped');
  }, 300_000);
});

function envNatsUser(pid: number): string {
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return new URL(environ.find((v) => v.startsWith('NATS_URL='))!.slice('NATS_URL='.length)).username;
}
