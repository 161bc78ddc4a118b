import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { httpPortVariable, MESH_PROCESSES } from '@flowmesh/contracts';
import { MeshChild } from '@flowmesh/cli';
import {
  ensureBuilt,
  REPO_ROOT,
  removeTestStreams,
  startFakeOpenAI,
  testRunEnv,
  testSubjectPrefix,
  waitFor,
  withFreePorts,
  withTestDatabase,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `flowmesh start` as `npm start` runs it, on its own prefix, database and free ports, once it
 * reports the mesh ready; started again on other ports if one was taken before it bound it.
 */
function startCommand(env: NodeJS.ProcessEnv) {
  return withFreePorts(1 + MESH_PROCESSES.length, async ([entryPort, ...processPorts]) => {
    const ports = Object.fromEntries(
      MESH_PROCESSES.map((p, i) => [httpPortVariable(p.name), String(processPorts[i])]),
    );
    const lines: string[] = [];
    const child = new MeshChild(
      {
        name: 'flowmesh',
        command: process.execPath,
        args: [join(REPO_ROOT, 'cli', 'bin', 'flowmesh.js'), 'start'],
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          ...testRunEnv(),
          ...env,
          ...ports,
          FLOWMESH_HTTP_PORT: String(entryPort),
        },
      },
      (line) => lines.push(line),
    );
    await waitFor(() => lines.some((line) => line.startsWith('flowmesh: mesh ready:')) || !child.running, {
      timeoutMs: 120_000,
      description: 'flowmesh start to report the mesh ready',
    });
    if (!child.running)
      throw new Error(`flowmesh start ended before the mesh was ready:\n${lines.join('\n')}`);
    return { child, lines, entryUrl: `http://127.0.0.1:${entryPort}` };
  });
}

/** Direct children of `pid`, with their command lines. */
function childrenOf(pid: number): Array<{ pid: number; args: string }> {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' }).trim();
  return out
    ? out.split('\n').map((line) => {
        const [, childPid = '0', args = ''] = /^\s*(\d+)\s+(.*)$/.exec(line) ?? [];
        return { pid: Number(childPid), args };
      })
    : [];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('flowmesh start (npm start)', () => {
  const database = withTestDatabase('start');
  const prefix = testSubjectPrefix('start');
  const env = { NATS_URL: process.env.NATS_URL, DATABASE_URL: database.url, FLOWMESH_SUBJECT_PREFIX: prefix };

  beforeAll(() => ensureBuilt(), 300_000);

  afterAll(async () => {
    await Promise.allSettled([database.drop(), removeTestStreams(process.env.NATS_URL ?? '', prefix)]);
  });

  it('runs six services and a worker behind one entry point, then stops them all on SIGTERM with exit 0', async () => {
    // The agent example against an OpenAI-compatible endpoint (a fake on loopback, allowed).
    const llm = await startFakeOpenAI({ apiKey: 'sk-example' });
    llm.setDefaultReply({ text: '19 plus 23 is 42.' });
    const mesh = await startCommand({
      ...env,
      FLOWMESH_EXAMPLE_LLM_URL: `${llm.url}/v1`,
      FLOWMESH_EXAMPLE_LLM_KEY: 'sk-example',
      FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
    }).catch(async (error: unknown) => {
      await llm.close();
      throw error;
    });
    const output = mesh.lines.join('\n');
    for (const p of MESH_PROCESSES)
      expect(output).toMatch(new RegExp(`^${p.name}\\s+0\\.1\\.0\\s+up\\s`, 'm'));
    expect(output).toMatch(
      /\[llm-gateway\]\s+\S+ INFO {2}ready: http:\/\/127\.0\.0\.1:\d+ \(llm-gateway 0\.1\.0\)/,
    );
    expect(output).toContain('flowmesh: example examples/flows/hello.yaml returned "Hello, world!"');
    expect(output).toMatch(
      /flowmesh: example examples\/flows\/agent\.yaml: .* saved as \$res:u\/[^/]+\/example_llm/,
    );
    expect(output).toContain('flowmesh: example examples/flows/agent.yaml returned');
    expect(output).toContain('19 plus 23 is 42.');
    // The key reached the endpoint from the secret variable, never from the flow.
    expect(llm.lastRequest().headers.authorization).toBe('Bearer sk-example');
    await llm.close();

    const entry = await fetch(`${mesh.entryUrl}/api/w/main/jobs`);
    expect(entry.headers.get('x-flowmesh-service')).toBe('flow-orchestrator');
    const children = childrenOf(mesh.child.pid ?? 0);
    expect(children).toHaveLength(MESH_PROCESSES.length);

    mesh.child.signal('SIGTERM');
    const exit = await mesh.child.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(mesh.lines.at(-1)).toBe('flowmesh: stopped');
    expect(children.filter((c) => alive(c.pid))).toEqual([]);
  }, 180_000);

  it('stops the rest and exits 1, naming the process, when one of them dies', async () => {
    const mesh = await startCommand(env);
    const children = childrenOf(mesh.child.pid ?? 0);
    const gateway = children.find((c) => c.args.includes(join('services', 'llm-gateway', 'dist', 'main.js')));
    expect(gateway).toBeDefined();

    process.kill(gateway?.pid ?? 0, 'SIGKILL');
    const exit = await mesh.child.exited;
    expect(exit.code).toBe(1);
    expect(mesh.lines).toContain(
      'flowmesh: llm-gateway stopped unexpectedly (killed by SIGKILL); stopping the mesh',
    );
    expect(children.filter((c) => alive(c.pid))).toEqual([]);
  }, 180_000);
});
