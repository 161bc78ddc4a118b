import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpPortVariable, MESH_PROCESSES, SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { MeshChild } from '@flowmesh/cli';
import {
  childrenOf,
  ensureBuilt,
  processAlive,
  REPO_ROOT,
  removeTestStreams,
  startFakeOpenAI,
  testRunEnv,
  testSubjectPrefix,
  waitFor,
  withFreePorts,
  withTestDatabase,
  scriptScratchDir,
} from '@flowmesh/testing';
import { credentials, makeClientConstructor, type Client } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `flowmesh start` as `npm start` runs it, on its own prefix, database and free ports, once it
 * reports the mesh ready; started again on other ports if one was taken before it bound it.
 */
function startCommand(env: NodeJS.ProcessEnv) {
  return withFreePorts(2 + MESH_PROCESSES.length, async ([entryPort, grpcPort, ...processPorts]) => {
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
          FLOWMESH_GRPC_PORT: String(grpcPort),
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
    return { child, lines, entryUrl: `http://127.0.0.1:${entryPort}`, grpcAddress: `127.0.0.1:${grpcPort}` };
  });
}

/** The standard gRPC health check of the whole server at `address`. */
async function grpcHealth(address: string): Promise<string> {
  const Health = makeClientConstructor(healthService, 'Health');
  const client = new Health(address, credentials.createInsecure()) as Client & {
    check(request: object, done: (error: Error | null, reply: { status: string }) => void): void;
  };
  try {
    return await new Promise<string>((resolve, reject) =>
      client.check({ service: '' }, (error, reply) => (error ? reject(error) : resolve(reply.status))),
    );
  } finally {
    client.close();
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
    // The API's own processes start first: the API answers before the others print a line.
    const apiReady = mesh.lines.findIndex((line) => line.startsWith('flowmesh: API ready: '));
    expect(apiReady).toBeGreaterThan(-1);
    for (const p of MESH_PROCESSES.filter(
      (p) => !['resource-registry', 'flow-orchestrator'].includes(p.name),
    ))
      expect(
        mesh.lines.findIndex((line) => line.startsWith(`[${p.name}]`)),
        p.name,
      ).toBeGreaterThan(apiReady);
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
    // The gRPC API is served too, on the port it was given, and said so.
    expect(output).toContain(`gRPC ${mesh.grpcAddress}`);
    expect(await grpcHealth(mesh.grpcAddress)).toBe('SERVING');
    const children = childrenOf(mesh.child.pid ?? 0);
    expect(children).toHaveLength(MESH_PROCESSES.length);

    mesh.child.signal('SIGTERM');
    const exit = await mesh.child.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(mesh.lines.at(-1)).toBe('flowmesh: stopped');
    expect(children.filter((c) => processAlive(c.pid))).toEqual([]);
  }, 180_000);

  it('restarts a process that dies; a run in flight completes across a registry restart (the job-token key is kept)', async () => {
    const mesh = await startCommand(env);
    // The session's admin token, as `flowmesh start` keeps it (the database's admin since the first start).
    const token = readFileSync(join(REPO_ROOT, '.flowmesh', 'admin-token'), 'utf8').trim();
    const api = async (path: string, body?: unknown) => {
      const response = await fetch(`${mesh.entryUrl}/api/w/main/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
      return text;
    };
    try {
      const children = childrenOf(mesh.child.pid ?? 0);
      const processOf = (service: string) =>
        children.find((c) => c.args.includes(join('services', service, 'dist', 'main.js')));
      // Only the registry holds the admin token and the job-token key; the worker (user code) neither.
      const environOf = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8');
      expect(environOf(processOf('resource-registry')!.pid)).toContain('FLOWMESH_JOB_TOKEN_KEY=');
      for (const c of children.filter((c) => !c.args.includes('resource-registry')))
        expect(environOf(c.pid)).not.toMatch(/FLOWMESH_ADMIN_TOKEN|FLOWMESH_JOB_TOKEN_KEY/);
      // Each process logs in to PostgreSQL as a role of its own: the worker's has the rows only.
      for (const p of MESH_PROCESSES) {
        const environ = children
          .filter((c) => c.args.includes(join('services', p.service, 'dist', 'main.js')))
          .map((c) => environOf(c.pid))
          .find(
            (text) =>
              text.includes(`\0FLOWMESH_ROLE=${p.role}\0`) || text.startsWith(`FLOWMESH_ROLE=${p.role}\0`),
          );
        const url = /(?:^|\0)DATABASE_URL=([^\0]*)/.exec(environ ?? '')?.[1];
        const suffix = p.role === 'worker' ? '_worker' : '';
        expect(new URL(url ?? 'x:').username, p.name).toBe(
          `${database.name.toLowerCase()}_${SERVICE_SCHEMAS[p.service]}${suffix}`,
        );
      }

      const { username } = JSON.parse(await api('users/whoami')) as { username: string };
      await api('variables/create', { path: `u/${username}/greeting`, value: 'hello', is_secret: false });
      // The run waits at its first step until the registry is back, then reads the variable with
      // the job token issued before the restart.
      const gate = join(scriptScratchDir('fm-e2e-gate-'), 'go');
      const id = await api('jobs/run/preview_flow', {
        value: {
          modules: [
            {
              id: 'wait',
              value: {
                type: 'rawscript',
                language: 'bun',
                content: `import { existsSync } from 'node:fs';\nexport async function main() {\n  while (!existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 100));\n  return 1;\n}`,
                input_transforms: {},
              },
            },
            {
              id: 'read',
              value: {
                type: 'rawscript',
                language: 'bun',
                content: 'export function main(greeting: string) { return greeting; }',
                input_transforms: { greeting: { type: 'static', value: `$var:u/${username}/greeting` } },
              },
            },
          ],
        },
        args: {},
      });

      const registry = processOf('resource-registry')!;
      process.kill(registry.pid, 'SIGKILL');
      await waitFor(() => mesh.lines.some((line) => line.startsWith('flowmesh: resource-registry is back')), {
        timeoutMs: 120_000,
        description: 'the registry to be restarted',
      });
      expect(mesh.lines).toContain(
        'flowmesh: resource-registry stopped unexpectedly (killed by SIGKILL); restarting it in 1 s (restart 1 of 5 within 10 min)',
      );
      expect(processAlive(registry.pid)).toBe(false);
      expect(childrenOf(mesh.child.pid ?? 0)).toHaveLength(MESH_PROCESSES.length);
      writeFileSync(gate, '');
      const outcome = await waitFor(
        async () => {
          const maybe = JSON.parse(await api(`jobs_u/completed/get_result_maybe/${id}`)) as {
            completed: boolean;
            success?: boolean;
            result: unknown;
          };
          return maybe.completed ? maybe : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 250, description: 'the run to end' },
      );
      expect(outcome).toMatchObject({ success: true, result: 'hello' });
    } finally {
      mesh.child.signal('SIGTERM');
      expect(await mesh.child.exited).toEqual({ code: 0, signal: null });
    }
  }, 300_000);
});
