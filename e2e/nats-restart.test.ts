import { randomBytes } from 'node:crypto';
import {
  natsServerInstalled,
  startMesh,
  startOwnNatsServer,
  waitFor,
  type OwnNatsServer,
  type TestMesh,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A NATS restart under load, as the chart's external NATS or `flowmesh start`'s own would have
 * one: the registry, the orchestrator and its worker run against a nats-server of this test's own,
 * 50 flows are in flight through the HTTP entry point, the server is SIGKILLed and started again.
 * Every flow must end right, new requests must succeed, every process must have said not-ready
 * while the server was away and ready again after, with one log line at the loss and one at the
 * return. Then the same with the server's JetStream storage lost (a new, empty server): the
 * streams and consumers the services need are made again, the flows in flight still end right,
 * and new flows run.
 */
const FLOWS = 50;
const OUTAGE_MS = 5_000;
const LOST_STORAGE_FLOWS = 20;
const WORKSPACE = 'main';
const PROCESSES = ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'];

/** Three steps that each take a moment and add one: n -> n + 3. */
function slowFlow(): Record<string, unknown> {
  const step = (id: string, input: string) => ({
    id,
    value: {
      type: 'rawscript',
      language: 'bun',
      content: [
        'export async function main(x: number) {',
        '  await new Promise((resolve) => setTimeout(resolve, 200 + Math.floor(Math.random() * 400)));',
        '  return x + 1;',
        '}',
      ].join('\n'),
      input_transforms: { x: { type: 'javascript', expr: input } },
    },
  });
  return { modules: [step('a', 'flow_input.n'), step('b', 'results.a'), step('c', 'results.b')] };
}

interface Harness {
  nats: OwnNatsServer;
  mesh: TestMesh;
  token: string;
}

let h: Harness | undefined;

beforeAll(async () => {
  if (!natsServerInstalled()) throw new Error('this suite needs /usr/sbin/nats-server');
  const nats = await startOwnNatsServer();
  const token = `fm_natsrestart_${randomBytes(24).toString('base64url')}`;
  try {
    const mesh = await startMesh({
      natsUrl: nats.url,
      processes: PROCESSES,
      entry: true,
      env: {
        FLOWMESH_ADMIN_TOKEN: token,
        FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
        // On disk, as a real deployment keeps them (tests otherwise keep theirs in memory), small
        // enough for the server's own directory: a restart keeps what the streams hold.
        FLOWMESH_STREAM_STORAGE: 'file',
        FLOWMESH_STREAM_MAX_BYTES: String(64 * 1024 * 1024),
      },
    });
    h = { nats, mesh, token };
  } catch (error) {
    nats.stop();
    throw error;
  }
}, 240_000);

afterAll(async () => {
  if (!h) return;
  try {
    await h.mesh.stop();
  } finally {
    h.nats.stop();
  }
}, 120_000);

function api(path: string, init: RequestInit = {}): Promise<Response> {
  if (!h) throw new Error('no mesh');
  return fetch(`${h.mesh.entryUrl}/api/w/${WORKSPACE}/${path}`, {
    ...init,
    headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
    signal: AbortSignal.timeout(30_000),
  });
}

async function runFlow(n: number): Promise<string> {
  const response = await api('jobs/run/preview_flow', {
    method: 'POST',
    body: JSON.stringify({ value: slowFlow(), args: { n } }),
  });
  const text = await response.text();
  if (response.status !== 201 && response.status !== 200) throw new Error(`run: ${response.status} ${text}`);
  return text.replace(/"/g, '');
}

interface Outcome {
  completed: boolean;
  success?: boolean;
  result: unknown;
}

async function outcomeOf(id: string): Promise<Outcome> {
  const response = await api(`jobs_u/completed/get_result_maybe/${id}`);
  if (response.status !== 200)
    throw new Error(`get_result_maybe: ${response.status} ${await response.text()}`);
  return (await response.json()) as Outcome;
}

/** Polls every process's `/readyz` until stopped: when each was last seen not ready and ready again. */
function watchReadiness(mesh: TestMesh) {
  const seen = new Map<string, { notReadyAt?: number; readyAgainAt?: number }>(
    PROCESSES.map((name) => [name, {}]),
  );
  let stopped = false;
  const loops = PROCESSES.map(async (name) => {
    const state = seen.get(name)!;
    while (!stopped) {
      const ready = await fetch(`${mesh.urls[name]}/readyz`, { signal: AbortSignal.timeout(5_000) })
        .then((r) => r.status === 200)
        .catch(() => false);
      if (!ready) {
        state.notReadyAt = Date.now();
        state.readyAgainAt = undefined;
      } else if (state.notReadyAt !== undefined && state.readyAgainAt === undefined) {
        state.readyAgainAt = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  return {
    seen,
    allBack: () =>
      [...seen.values()].every((s) => s.notReadyAt !== undefined && s.readyAgainAt !== undefined),
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** What a process says of an outage: the connection's two lines and readiness's two, once each. */
const SAID = {
  lost: /"msg":"NATS connection lost \(/,
  back: /"msg":"NATS connection back after \d+\.\d s/,
  notReady: /"msg":"not ready \(nats: /,
  readyAgain: /"msg":"ready again"/,
};

function outageLines(mesh: TestMesh, name: string): Record<keyof typeof SAID, number> {
  const lines = mesh.logs(name);
  const count = (pattern: RegExp) => lines.filter((line) => pattern.test(line)).length;
  return {
    lost: count(SAID.lost),
    back: count(SAID.back),
    notReady: count(SAID.notReady),
    readyAgain: count(SAID.readyAgain),
  };
}

async function waitForFlows(ids: string[], what: string): Promise<Map<string, Outcome>> {
  const ended = new Map<string, Outcome>();
  await waitFor(
    async () => {
      for (const id of ids.filter((id) => !ended.has(id))) {
        const outcome = await outcomeOf(id).catch(() => undefined);
        if (outcome?.completed) ended.set(id, outcome);
      }
      return ended.size === ids.length;
    },
    { timeoutMs: 240_000, intervalMs: 1_000, description: `${ids.length} flows to end ${what}` },
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; ${ended.size}/${ids.length} ended`);
  });
  return ended;
}

describe('a NATS restart under load', () => {
  it('with its storage kept: every flow in flight ends right, readiness drops and returns, one log line each way', async () => {
    if (!h) throw new Error('the mesh did not start');
    const { mesh, nats } = h;
    const before = Object.fromEntries(PROCESSES.map((name) => [name, outageLines(mesh, name)]));
    const ids: string[] = [];
    for (let i = 0; i < FLOWS; i++) ids.push(await runFlow(i * 10));

    const readiness = watchReadiness(mesh);
    let killedAt: number;
    let restartedAt: number;
    let backAt: number;
    try {
      // Some flows have started steps, others still wait: the kill lands in the middle of them.
      await waitFor(
        async () => (await Promise.all(ids.slice(0, 5).map(outcomeOf))).some((o) => o.completed),
        {
          timeoutMs: 60_000,
          intervalMs: 100,
          description: 'the first flows to end',
        },
      );
      killedAt = Date.now();
      await nats.kill();
      // Long enough for every process to notice and for readiness to be polled while it is away.
      await waitFor(
        () =>
          [...readiness.seen.values()].every((s) => s.notReadyAt !== undefined && s.notReadyAt > killedAt),
        { timeoutMs: 30_000, intervalMs: 100, description: 'every process to report not ready' },
      );
      // An outage of some seconds, not a blip: requests meet a server that is gone.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + OUTAGE_MS - Date.now())));
      restartedAt = Date.now();
      await nats.restart();
      await waitFor(() => readiness.allBack(), {
        timeoutMs: 120_000,
        intervalMs: 100,
        description: 'every process to be ready again',
      });
      backAt = Math.max(...[...readiness.seen.values()].map((s) => s.readyAgainAt ?? 0));
    } finally {
      await readiness.stop();
    }

    const ended = await waitForFlows(ids, 'after the NATS restart');
    const wrong = ids.flatMap((id, i) => {
      const o = ended.get(id)!;
      return o.success === true && o.result === i * 10 + 3 ? [] : [`#${i}: ${JSON.stringify(o)}`];
    });
    expect(wrong).toEqual([]);

    // A new request after recovery: authenticated (the registry over NATS) and run through.
    const fresh = await runFlow(1_000);
    expect((await waitForFlows([fresh], 'after recovery')).get(fresh)).toMatchObject({
      success: true,
      result: 1_003,
    });

    for (const name of PROCESSES) {
      const now = outageLines(mesh, name);
      const then = before[name];
      expect(
        {
          lost: now.lost - then.lost,
          back: now.back - then.back,
          notReady: now.notReady - then.notReady,
          readyAgain: now.readyAgain - then.readyAgain,
        },
        `${name}'s log:\n${mesh.logs(name).slice(-20).join('\n')}`,
      ).toEqual({ lost: 1, back: 1, notReady: 1, readyAgain: 1 });
    }
    console.info(
      `nats restart (storage kept): ${FLOWS} flows tried, ${FLOWS - wrong.length} held, ${wrong.length} lost; ` +
        `server away ${restartedAt - killedAt} ms; every process ready ${backAt - restartedAt} ms after the restart`,
    );
  }, 420_000);

  it('with its storage lost: streams and consumers are made again, flows in flight end right, new ones run', async () => {
    if (!h) throw new Error('the mesh did not start');
    const { mesh, nats } = h;
    const inFlight: string[] = [];
    for (let i = 0; i < LOST_STORAGE_FLOWS; i++) inFlight.push(await runFlow(i * 10));
    await waitFor(
      async () => (await Promise.all(inFlight.slice(0, 5).map(outcomeOf))).some((o) => o.completed),
      { timeoutMs: 60_000, intervalMs: 100, description: 'the first flows to end' },
    );

    const readiness = watchReadiness(mesh);
    const killedAt = Date.now();
    try {
      await nats.kill({ loseStorage: true });
      await waitFor(
        () =>
          [...readiness.seen.values()].every((s) => s.notReadyAt !== undefined && s.notReadyAt > killedAt),
        { timeoutMs: 30_000, intervalMs: 100, description: 'every process to report not ready' },
      );
      await nats.restart();
      await waitFor(() => readiness.allBack(), {
        timeoutMs: 120_000,
        intervalMs: 100,
        description: 'every process to be ready again',
      });
    } finally {
      await readiness.stop();
    }

    // The work messages the lost storage held are gone; the runs are in PostgreSQL and go on.
    const held = await waitForFlows(inFlight, 'after the storage was lost');
    const wrong = inFlight.flatMap((id, i) => {
      const o = held.get(id)!;
      return o.success === true && o.result === i * 10 + 3 ? [] : [`#${i}: ${JSON.stringify(o)}`];
    });
    expect(wrong).toEqual([]);

    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await runFlow(i));
    const ended = await waitForFlows(ids, 'on the new server');
    expect(ids.map((id, i) => [ended.get(id)?.success, ended.get(id)?.result, i])).toEqual(
      ids.map((_, i) => [true, i + 3, i]),
    );
    console.info(
      `nats restart (storage lost): ${LOST_STORAGE_FLOWS} flows tried, ${LOST_STORAGE_FLOWS - wrong.length} held, ${wrong.length} lost`,
    );
  }, 420_000);
});
