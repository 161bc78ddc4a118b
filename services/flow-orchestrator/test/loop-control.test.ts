import { randomBytes } from 'node:crypto';
import {
  createOrchestratorJobsClient,
  createOrchestratorWorkspaceSettingsClient,
  createRegistryIdentityClient,
  isTerminalJobStatus,
  MeshError,
  type Job,
  type OrchestratorJobsClient,
  type OrchestratorWorkspaceSettingsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { startMesh, waitFor, type TestMesh } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Loops that run long in a worker, on real processes (registry, orchestrator, one worker): a
 * squashed forloop of a million trivial iterations runs in memory in the worker for many seconds
 * (minutes before the fix, which held the event loop all along). Cancel must stop it while it
 * runs, another flow must finish on the same worker while it runs, and a workspace's caps refuse
 * loops and flows past them, naming the setting. Nothing here is timed: each test looks at the
 * order of events (the loop had not ended when the other flow had; the loop stopped short of its
 * last iteration), so a slow machine changes only how long the loop runs.
 */
const ITERATIONS = 300_000;

function identity(id: string): Record<string, unknown> {
  return { id, value: { type: 'identity' } };
}

/**
 * A first step that builds the items (a script: off the worker's event loop), then the long
 * squashed loop over them (`results.items`, read in the worker at once). The first step's commit
 * marks the run `running` while the loop is already under way.
 */
function longLoop(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    value: {
      modules: [
        {
          id: 'items',
          value: {
            type: 'rawscript',
            language: 'bun',
            content: `export function main() { return Array.from({ length: ${ITERATIONS} }, (_, i) => i); }`,
            input_transforms: {},
          },
        },
        {
          id: 'loop',
          value: {
            type: 'forloopflow',
            squash: true,
            skip_failures: false,
            iterator: { type: 'javascript', expr: 'results.items' },
            modules: [identity('body')],
            ...extra,
          },
        },
      ],
    },
  };
}

describe('long loops in a worker', () => {
  let mesh: TestMesh;
  let conn: MeshConnection;
  let jobs: OrchestratorJobsClient;
  let settings: OrchestratorWorkspaceSettingsClient;
  const actor = { token: `fm_loops_${randomBytes(24).toString('base64url')}` };

  beforeAll(async () => {
    mesh = await startMesh({
      processes: ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'],
      env: {
        FLOWMESH_ADMIN_TOKEN: actor.token,
        FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
        LOG_LEVEL: 'warn',
        // The iterator of 300 000 items is built in the sandbox: on a loaded machine that takes
        // longer than the default second.
        FLOWMESH_EXPR_TIMEOUT_MS: '60000',
        FLOWMESH_EXPR_MEMORY_MB: '256',
      },
    });
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'loop-control',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    jobs = createOrchestratorJobsClient(client);
    settings = createOrchestratorWorkspaceSettingsClient(client);
  }, 400_000);

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    await mesh?.stop();
  }, 60_000);

  const start = async (value: Record<string, unknown>, workspace = 'main') =>
    (await jobs.runFlow({ actor, workspace, ...value })).job_id;
  const get = (id: string, workspace = 'main') => jobs.get({ actor, workspace, id });
  const ended = (id: string, workspace = 'main', timeoutMs = 60_000) =>
    waitFor(
      async () => {
        const job = await get(id, workspace);
        return isTerminalJobStatus(job.status) ? job : undefined;
      },
      { timeoutMs, intervalMs: 50, description: `job ${id} to end` },
    );
  /** The run's first step committed: the worker went on to the loop. */
  const running = (id: string) =>
    waitFor(
      async () => {
        const status = (await get(id)).flow_status as { modules: Array<{ type: string }> } | null;
        return status?.modules[0]?.type === 'Success' ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 25, description: `job ${id} to reach its loop` },
    );
  const loopStatus = (job: Job) =>
    (job.flow_status as { modules: Array<Record<string, unknown>> }).modules[1];

  it('cancel stops a squashed loop while it runs', async () => {
    const id = await start(longLoop());
    await running(id);
    const asked = performance.now();
    expect((await jobs.cancel({ actor, workspace: 'main', id, reason: 'too long' })).cancelled).toBe(true);
    const job = await ended(id);
    // A figure for the report, not an assertion: the machine's load decides it.
    const iterator = loopStatus(job)?.iterator as { index: number } | undefined;
    console.log(
      `squashed loop: ended ${Math.round(performance.now() - asked)} ms after cancel answered, at iteration ${iterator?.index} of ${ITERATIONS}`,
    );
    expect(job.status).toBe('cancelled');
    expect(job.result).toMatchObject({ error: { name: 'Canceled', reason: 'too long' } });
    // Stopped short: before the fix the loop ran every iteration, then its flow saw the cancel.
    const loop = loopStatus(job);
    expect(loop.type).toBe('Failure');
    expect((loop.iterator as { index: number }).index).toBeLessThan(ITERATIONS);
  });

  it('another flow finishes on the same worker while a squashed loop runs', async () => {
    const long = await start(longLoop());
    await running(long);
    const short = await start({ value: { modules: [identity('only')] }, args: { x: 1 } });
    expect((await ended(short)).status).toBe('completed');
    // Before the fix the worker's event loop was held by the loop: the short flow ran after it.
    expect((await get(long)).status).toBe('running');
    await jobs.cancel({ actor, workspace: 'main', id: long });
    expect((await ended(long)).status).toBe('cancelled');
  });

  it('cancel stops a parallel squashed loop too', async () => {
    const id = await start(longLoop({ parallel: true, parallelism: { type: 'static', value: 4 } }));
    await running(id);
    await jobs.cancel({ actor, workspace: 'main', id });
    const job = await ended(id);
    expect(job.status).toBe('cancelled');
    expect(loopStatus(job).type).toBe('Failure');
  });

  describe('workspace caps', () => {
    // A workspace of its own: no worker has its settings cached yet.
    const workspace = `caps_${randomBytes(4).toString('hex')}`;

    beforeAll(async () => {
      await createRegistryIdentityClient(new MeshClient(conn)).createWorkspace({
        actor,
        id: workspace,
        name: 'caps',
      });
    });

    it('a workspace admin sets the caps; unset ones keep their defaults', async () => {
      expect(await settings.get({ actor, workspace })).toEqual({
        max_loop_iterations: 1_000_000,
        max_flow_modules: 20_000,
        max_agent_iterations: 1_000,
        max_agent_tool_calls: 10_000,
        max_agent_depth: 10,
      });
      expect(
        await settings.update({
          actor,
          workspace,
          settings: { max_loop_iterations: 100, max_flow_modules: 5 },
        }),
      ).toMatchObject({ max_loop_iterations: 100, max_flow_modules: 5, max_agent_depth: 10 });
      expect(
        await settings.update({ actor, workspace, settings: { max_agent_iterations: 3 } }),
      ).toMatchObject({ max_loop_iterations: 100, max_agent_iterations: 3 });
      expect(await settings.get({ actor, workspace })).toEqual({
        max_loop_iterations: 100,
        max_flow_modules: 5,
        max_agent_iterations: 3,
        max_agent_tool_calls: 10_000,
        max_agent_depth: 10,
      });
    });

    it('a forloop over more items than the cap fails naming it', async () => {
      const loop = (n: number, squash: boolean) => ({
        value: {
          modules: [
            {
              id: 'loop',
              value: {
                type: 'forloopflow',
                squash,
                skip_failures: false,
                iterator: { type: 'javascript', expr: `Array.from({ length: ${n} }, (_, i) => i)` },
                modules: [identity('body')],
              },
            },
          ],
        },
      });
      for (const squash of [true, false]) {
        const over = await ended(await start(loop(101, squash), workspace), workspace);
        expect(over.status).toBe('failed');
        expect(over.result).toMatchObject({
          error: {
            name: 'LimitExceeded',
            message:
              "forloop 'loop' has 101 iterations; this workspace allows at most 100 (max_loop_iterations)",
          },
        });
        const at = await ended(await start(loop(100, squash), workspace), workspace);
        expect(at.status).toBe('completed');
        expect(at.result).toHaveLength(100);
      }
    });

    it('a whileloop that would run past the cap fails naming it', async () => {
      const job = await ended(
        await start(
          {
            value: {
              modules: [
                {
                  id: 'forever',
                  value: {
                    type: 'whileloopflow',
                    squash: true,
                    skip_failures: false,
                    modules: [identity('body')],
                  },
                },
              ],
            },
          },
          workspace,
        ),
        workspace,
      );
      expect(job.status).toBe('failed');
      expect(job.result).toMatchObject({
        error: {
          name: 'LimitExceeded',
          message:
            "whileloop 'forever' reached 100 iterations; this workspace allows at most 100 (max_loop_iterations)",
        },
      });
    });

    it('a flow with more modules than the cap is refused when it is started', async () => {
      const modules = (n: number) => ({
        value: { modules: Array.from({ length: n }, (_, i) => identity(`s${i}`)) },
      });
      const refused = await start(modules(6), workspace).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(MeshError);
      expect(refused).toMatchObject({
        code: 'LIMIT_EXCEEDED',
        message: 'flow has 6 modules; this workspace allows at most 5 (max_flow_modules)',
      });
      expect((await ended(await start(modules(5), workspace), workspace)).status).toBe('completed');
    });

    it('null puts a cap back to its default', async () => {
      expect(await settings.update({ actor, workspace, settings: { max_loop_iterations: null } })).toEqual({
        max_loop_iterations: 1_000_000,
        max_flow_modules: 5,
        max_agent_iterations: 3,
        max_agent_tool_calls: 10_000,
        max_agent_depth: 10,
      });
    });
  });
});
