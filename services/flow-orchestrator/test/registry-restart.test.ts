import { randomBytes } from 'node:crypto';
import {
  createOrchestratorJobsClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  type Job,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { startMesh, waitFor, type TestMesh } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A registry restart under load: 150 flows whose every step resolves a `$var:` run while the
 * resource-registry is SIGKILLed and started again by the mesh's supervisor (as `flowmesh start`
 * does). Requests that are safe to repeat (interpolation, job tokens, reads) ride out the restart
 * with retries, so every flow ends completed with its right result. Before those retries, most
 * failed with `UNAVAILABLE no service answers fm.registry.interpolate` or a 5 s TIMEOUT.
 */
const FLOWS = 150;
const WORKSPACE = 'main';
const VARIABLE = `u/admin/restart_${randomBytes(4).toString('hex')}`;
const WORD = `word-${randomBytes(6).toString('hex')}`;

/** A step that reads the variable through a `$var:` static input, waits a little, and adds one. */
function step(id: string, input: string): Record<string, unknown> {
  return {
    id,
    value: {
      type: 'rawscript',
      language: 'bun',
      content: [
        'export async function main(word: string, x: number) {',
        '  await new Promise((resolve) => setTimeout(resolve, 100 + Math.floor(Math.random() * 200)));',
        `  if (word !== ${JSON.stringify(WORD)}) throw new Error('the variable read as ' + word);`,
        '  return x + 1;',
        '}',
      ].join('\n'),
      input_transforms: {
        word: { type: 'static', value: `$var:${VARIABLE}` },
        x: { type: 'javascript', expr: input },
      },
    },
  };
}

const flow = {
  summary: 'registry restart',
  value: {
    modules: [
      step('a', 'flow_input.n'),
      step('b', 'results.a'),
      step('c', 'results.b'),
      step('d', 'results.c'),
    ],
  },
};

let mesh: TestMesh | undefined;
let conn: MeshConnection | undefined;
const adminToken = `fm_rr_${randomBytes(24).toString('base64url')}`;

beforeAll(async () => {
  mesh = await startMesh({
    processes: ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'],
    env: {
      FLOWMESH_ADMIN_TOKEN: adminToken,
      FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
      // As `flowmesh start` and the chart give it: job tokens signed before the restart stay valid.
      FLOWMESH_JOB_TOKEN_KEY: randomBytes(32).toString('base64url'),
      // A registry start takes 5 s on an idle machine and 30 s with every core busy (CI): the
      // callers' window for requests safe to repeat (30 s by default) must outlast the latter.
      FLOWMESH_REQUEST_RETRY_MS: '120000',
      LOG_LEVEL: 'warn',
    },
    readyTimeoutMs: 150_000,
  });
  conn = await connectMesh({
    url: mesh.env.NATS_URL,
    name: 'registry-restart',
    prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
  });
}, 240_000);

afterAll(async () => {
  await conn?.drain().catch(() => undefined);
  await mesh?.stop();
}, 180_000);

async function ready(url: string): Promise<boolean> {
  return fetch(`${url}/readyz`).then(
    async (response) => {
      await response.body?.cancel();
      return response.ok;
    },
    () => false,
  );
}

describe('a registry restart under load', () => {
  it('150 flows resolving $var: all end right across a SIGKILL of the registry', async () => {
    if (!mesh || !conn) throw new Error('the mesh did not start');
    const client = new MeshClient(conn);
    const jobs = createOrchestratorJobsClient(client);
    const actor = { token: adminToken };
    await createRegistryItemsClient(client).createVariable({
      actor,
      workspace: WORKSPACE,
      path: VARIABLE,
      value: WORD,
      is_secret: false,
    });

    const ids: string[] = [];
    for (let i = 0; i < FLOWS; i++) {
      const { job_id } = await jobs.runFlow({
        actor,
        workspace: WORKSPACE,
        value: flow,
        args: { n: i * 10 },
      });
      ids.push(job_id);
    }

    // Kill once the flows are well under way: some done, most in flight.
    const finished = new Map<string, Job>();
    const poll = async () => {
      for (const id of ids.filter((id) => !finished.has(id))) {
        const job = await jobs.get({ actor, workspace: WORKSPACE, id });
        if (isTerminalJobStatus(job.status)) finished.set(id, job);
      }
      return finished.size;
    };
    await waitFor(async () => (await poll()) >= 5, {
      timeoutMs: 120_000,
      intervalMs: 100,
      description: 'the first flows to end',
    });
    const registry = mesh.running.processes.find((p) => p.name === 'resource-registry');
    const killedPid = registry?.pid;
    if (!registry || killedPid === undefined) throw new Error('no registry process');
    const endedBeforeKill = finished.size;
    const killedAt = Date.now();
    process.kill(killedPid, 'SIGKILL');
    // The supervisor starts it again (after its 1 s backoff); wait for the new one to be ready.
    await waitFor(async () => registry.pid !== killedPid && (await ready(registry.url)), {
      timeoutMs: 150_000,
      intervalMs: 100,
      description: 'the registry to be restarted and ready',
    });
    const backAfterMs = Date.now() - killedAt;

    await waitFor(async () => (await poll()) === FLOWS, {
      timeoutMs: 300_000,
      intervalMs: 1_000,
      description: `all ${FLOWS} flows to end after the registry restart`,
    }).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; ${finished.size}/${FLOWS} ended`);
    });

    const wrong = ids.flatMap((id, i) => {
      const job = finished.get(id) as Job;
      return job.status === 'completed' && job.result === i * 10 + 4
        ? []
        : [`flow ${i}: ${job.status} ${JSON.stringify(job.result)}`];
    });
    console.info(
      `registry restart: ${FLOWS} flows, ${endedBeforeKill} ended before the kill, registry back in ${backAfterMs} ms; ` +
        `held ${FLOWS - wrong.length}, lost ${wrong.length}`,
    );
    expect(wrong.slice(0, 10), `${wrong.length} of ${FLOWS} flows did not end right`).toEqual([]);
    expect(wrong.length).toBe(0);
  }, 600_000);
});
