import { randomBytes } from 'node:crypto';
import {
  createRegistryIdentityClient,
  createRegistryItemsClient,
  type Actor,
  type RegistryIdentityClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
// The registry runs in this process (its published test entry point): real tokens, groups and
// folders without a build of the registry on every run.
// eslint-disable-next-line no-restricted-imports
import { resourceRegistryDefinition } from '@flowmesh/resource-registry/definition';
import { startTestService, waitFor, type TestService } from '@flowmesh/testing';
import { flowOrchestratorDefinition } from '../../src/flow-orchestrator.definition.js';

export type Member = 'admin' | 'alice' | 'bob';

/**
 * The run API's world: the real resource-registry, the orchestrator and one of its workers, all
 * in this process on one subject prefix, with an admin and two members (alice is in the group
 * `approvers`), each with an API token of workspace `main`.
 */
export interface RunApiMesh {
  readonly registry: TestService;
  readonly orchestrator: TestService;
  readonly worker: TestService;
  readonly tokens: Readonly<Record<Member, string>>;
  readonly identity: RegistryIdentityClient;
  readonly items: RegistryItemsClient;
  /** `fetch` to `<orchestrator>/api/w/main/<route>` with a member's bearer token (none: no header). */
  http(method: string, route: string, as?: Member, body?: unknown): Promise<HttpAnswer>;
  stop(): Promise<void>;
}

export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  json<T = unknown>(): T;
}

export const RESUME_KEY = 'test-resume-key-'.padEnd(40, 'x');

/** `orchestratorEnv`: settings of the orchestrator over the test's own. */
export async function startRunApiMesh(
  options: { orchestratorEnv?: Record<string, string> } = {},
): Promise<RunApiMesh> {
  const adminToken = `fm_test_${randomBytes(24).toString('base64url')}`;
  const registry = await startTestService(resourceRegistryDefinition, {
    env: { FLOWMESH_ADMIN_TOKEN: adminToken, FLOWMESH_ADMIN_EMAIL: 'admin@example.test' },
  });
  const shared = { FLOWMESH_SUBJECT_PREFIX: registry.config.subjectPrefix, FLOWMESH_RESUME_KEY: RESUME_KEY };
  const started: TestService[] = [registry];
  try {
    const orchestrator = await startTestService(flowOrchestratorDefinition, {
      env: { ...shared, FLOWMESH_WAIT_RESULT_TIMEOUT_MS: '20000', ...options.orchestratorEnv },
    });
    started.push(orchestrator);
    // The worker shares the orchestrator's database: the job rows are one service's.
    const worker = await startTestService(flowOrchestratorDefinition, {
      role: 'worker',
      env: { ...shared, DATABASE_URL: orchestrator.config.database.url },
    });
    started.push(worker);

    const identity = createRegistryIdentityClient(registry.client);
    const items = createRegistryItemsClient(registry.client);
    const admin: Actor = { token: adminToken };
    const inMain = { actor: admin, workspace: 'main' };
    const tokens: Record<Member, string> = { admin: adminToken, alice: '', bob: '' };
    for (const username of ['alice', 'bob'] as const) {
      await identity.addUser({ ...inMain, email: `${username}@example.test`, username });
      tokens[username] = (await identity.createApiToken({ ...inMain, username, label: 'test' })).token;
    }
    await identity.createGroup({ ...inMain, name: 'approvers' });
    await identity.addGroupMember({ ...inMain, name: 'approvers', username: 'alice' });

    const http = async (method: string, route: string, as?: Member, body?: unknown): Promise<HttpAnswer> => {
      const headers: Record<string, string> = {};
      if (as) headers.authorization = `Bearer ${tokens[as]}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${orchestrator.url}/api/w/main/${route}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        text,
        json: <T>() => JSON.parse(text) as T,
      };
    };
    return {
      registry,
      orchestrator,
      worker,
      tokens,
      identity,
      items,
      http,
      stop: () => stopInOrder(started),
    };
  } catch (error) {
    await stopInOrder(started);
    throw error;
  }
}

/** Last started first: the worker stops before the orchestrator drops the database they share. */
async function stopInOrder(started: readonly TestService[]): Promise<void> {
  for (const service of [...started].reverse()) await service.stop().catch(() => undefined);
}

/** A one-step flow value: an inline TypeScript step, `main` with the given body. */
export function scriptStep(id: string, main: string, inputTransforms: Record<string, string> = {}) {
  return {
    id,
    value: {
      type: 'rawscript',
      language: 'bun',
      content: `export async function main(${Object.keys(inputTransforms).join(', ')}) { ${main} }`,
      input_transforms: Object.fromEntries(
        Object.entries(inputTransforms).map(([name, expr]) => [name, { type: 'javascript', expr }]),
      ),
    },
  };
}

/** A job as `jobs_u/get` shows it, read as `as`; fails the test on any other answer than 200. */
export async function readJob<T extends { success?: boolean }>(
  mesh: RunApiMesh,
  id: string,
  as: Member = 'admin',
): Promise<T> {
  const answer = await mesh.http('GET', `jobs_u/get/${id}`, as);
  if (answer.status !== 200) throw new Error(`GET jobs_u/get/${id}: ${answer.status} ${answer.text}`);
  return answer.json<T>();
}

/** The job once it ended (`success` set), read as the admin. */
export function endedJob<T extends { success?: boolean }>(
  mesh: RunApiMesh,
  id: string,
  timeoutMs = 120_000,
): Promise<T> {
  return waitFor(
    async () => {
      const found = await readJob<T>(mesh, id);
      return found.success === undefined ? undefined : found;
    },
    { timeoutMs, description: `job ${id} to end` },
  );
}
