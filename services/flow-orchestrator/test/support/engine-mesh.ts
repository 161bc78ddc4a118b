import { randomBytes } from 'node:crypto';
import {
  createOrchestratorJobsClient,
  createRegistryIdentityClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  type Actor,
  type Job,
  type OrchestratorJobsClient,
  type RegistryIdentityClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
// The registry runs in this process (its published test entry point).
// eslint-disable-next-line no-restricted-imports
import { resourceRegistryDefinition } from '@flowmesh/resource-registry/definition';
import { startTestService, waitFor, type TestService } from '@flowmesh/testing';
import { flowOrchestratorDefinition } from '../../src/flow-orchestrator.definition.js';

/**
 * The engine's world for a test file: the real resource-registry, the orchestrator (API role)
 * and one or more workers, in this process on one subject prefix and one orchestrator
 * database; jobs are run through `orchestrator.job.*` over NATS as the workspace admin.
 */
export interface EngineMesh {
  readonly registry: TestService;
  readonly orchestrator: TestService;
  readonly workers: TestService[];
  readonly admin: Actor;
  readonly jobs: OrchestratorJobsClient;
  readonly identity: RegistryIdentityClient;
  readonly items: RegistryItemsClient;
  /** Runs a flow value and waits for its end; the job as it ended. */
  runFlow(
    value: Record<string, unknown>,
    args?: Record<string, unknown>,
    extra?: Record<string, unknown>,
  ): Promise<Job>;
  startFlow(
    value: Record<string, unknown>,
    args?: Record<string, unknown>,
    extra?: Record<string, unknown>,
  ): Promise<string>;
  waitEnded(id: string, timeoutMs?: number): Promise<Job>;
  get(id: string): Promise<Job>;
  addWorker(env?: Record<string, string>): Promise<TestService>;
  stop(): Promise<void>;
}

export interface EngineMeshOptions {
  /** Environment of every worker (tags, concurrency, ...). */
  readonly workerEnv?: Record<string, string>;
  readonly workers?: number;
}

export async function startEngineMesh(options: EngineMeshOptions = {}): Promise<EngineMesh> {
  const adminToken = `fm_test_${randomBytes(24).toString('base64url')}`;
  const registry = await startTestService(resourceRegistryDefinition, {
    env: { FLOWMESH_ADMIN_TOKEN: adminToken, FLOWMESH_ADMIN_EMAIL: 'admin@example.test' },
  });
  const started: TestService[] = [registry];
  const shared = { FLOWMESH_SUBJECT_PREFIX: registry.config.subjectPrefix };
  try {
    const orchestrator = await startTestService(flowOrchestratorDefinition, {
      env: { ...shared, FLOWMESH_TIMER_POLL_MS: '50' },
    });
    started.push(orchestrator);
    const workers: TestService[] = [];
    const addWorker = async (env: Record<string, string> = {}) => {
      const worker = await startTestService(flowOrchestratorDefinition, {
        role: 'worker',
        env: {
          ...shared,
          DATABASE_URL: orchestrator.config.database.url,
          FLOWMESH_TIMER_POLL_MS: '50',
          ...options.workerEnv,
          ...env,
        },
      });
      started.push(worker);
      workers.push(worker);
      return worker;
    };
    for (let i = 0; i < (options.workers ?? 1); i++) await addWorker();
    const admin: Actor = { token: adminToken };
    const jobs = createOrchestratorJobsClient(registry.client);
    const get = (id: string) => jobs.get({ actor: admin, workspace: 'main', id });
    const startFlow = async (
      value: Record<string, unknown>,
      args: Record<string, unknown> = {},
      extra: Record<string, unknown> = {},
    ) => (await jobs.runFlow({ actor: admin, workspace: 'main', value, args, ...extra })).job_id;
    const waitEnded = (id: string, timeoutMs = 30_000) =>
      waitFor(
        async () => {
          const job = await get(id);
          return isTerminalJobStatus(job.status) ? job : undefined;
        },
        { timeoutMs, intervalMs: 25, description: `job ${id} to end` },
      );
    return {
      registry,
      orchestrator,
      workers,
      admin,
      jobs,
      identity: createRegistryIdentityClient(registry.client),
      items: createRegistryItemsClient(registry.client),
      runFlow: async (value, args, extra) => waitEnded(await startFlow(value, args, extra)),
      startFlow,
      waitEnded,
      get,
      addWorker,
      stop: async () => {
        for (const service of started.reverse()) await service.stop().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const service of started.reverse()) await service.stop().catch(() => undefined);
    throw error;
  }
}

/** `{ type: 'javascript', expr }` transforms from `{ name: expr }`. */
export function js(transforms: Record<string, string>): Record<string, { type: 'javascript'; expr: string }> {
  return Object.fromEntries(
    Object.entries(transforms).map(([name, expr]) => [name, { type: 'javascript', expr }]),
  );
}

/** An identity step (returns its previous result). */
export function identity(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, value: { type: 'identity' }, ...extra };
}
