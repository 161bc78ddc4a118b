import { randomBytes } from 'node:crypto';
import type { CallerIdentity } from '@flowmesh/contracts';
import { expectEventually, waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessService } from '../src/access/access.service.js';
import { FOLDER_ROLES_TTL_MS } from '../src/folders/folder-roles.cache.js';
import { ReadVariablesUseCase } from '../src/variables/read-variables.use-case.js';
import { WriteVariablesUseCase } from '../src/variables/write-variables.use-case.js';
import { startRegistryCast, type HttpAnswer, type RegistryCast } from './support/registry-cast.js';
import { startRegistryReplica, type RegistryReplica } from './support/registry-replica.js';

/**
 * Interpolation reads resource and variable rows through a cache. Both registries here keep rows
 * for ten minutes, so whatever a test sees change was dropped by an invalidation, never by the
 * time to live: the writer's own (at once) or another replica's item events (within moments).
 * Identities and folder roles keep their own 1 s caches (`FLOWMESH_AUTH_CACHE_MS`,
 * `FOLDER_ROLES_TTL_MS`): the writer drops them at once, another replica within that second.
 */
const READ_CACHE_MS = '600000';
/** Shared, as replicas must share it, so each accepts the job tokens the other signs. */
const JOB_TOKEN_KEY = randomBytes(32).toString('base64url');
/**
 * How long another replica may take to hear of a write: an event crossing NATS on a busy machine
 * takes far less, and the ten-minute time to live far more.
 */
const EVENT_DELIVERY_MS = 60_000;
/** The identity (`FLOWMESH_AUTH_CACHE_MS`, 1 s by default) and folder caches of another replica. */
const IDENTITY_TTL_MS = Math.max(FOLDER_ROLES_TTL_MS, 1_000);

let cast: RegistryCast;
let replica: RegistryReplica;
const AGENT = 'f/cache/agent';

const agentValue = (key: string, organization?: string) => ({
  provider: {
    kind: 'openai',
    resource: { api_key: key, ...(organization === undefined ? {} : { organization_id: organization }) },
    model: 'gpt-4o',
  },
  system_prompt: 'Be brief.',
});

type Http = (method: string, path: string, token?: string, body?: unknown) => Promise<HttpAnswer>;

/** HTTP to one registry in particular (over NATS either may answer); a text answer stays text. */
function httpTo(baseUrl: () => string): Http {
  return async (method, path, token, body) => {
    const headers: Record<string, string> = {};
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json = response.headers.get('content-type')?.includes('application/json') ?? false;
    return { status: response.status, body: json && text ? (JSON.parse(text) as unknown) : text };
  };
}

/** The registry that makes every write in these tests. */
const writer = httpTo(() => cast.service.url);
/** Another replica on the same database and subject prefix, which only reads. */
const other = httpTo(() => replica.url);

function readAgent(http: Http, token: string, path = AGENT): Promise<HttpAnswer> {
  return http('GET', `/api/w/main/resources/get_value_interpolated/${path}`, token);
}

/**
 * Reads until one answers `status`, and fails if a read begun more than `ttlMs` after `since`
 * did not: what a replica cached before `since` lives `ttlMs` at most, so a read begun later
 * finds it gone, however slowly this machine goes. Only the wait for the answer is generous.
 */
async function expectAnswerWithinTtl(
  read: () => Promise<HttpAnswer>,
  status: number,
  since: number,
  ttlMs: number,
): Promise<void> {
  const stale: number[] = [];
  await waitFor(
    async () => {
      const begun = Date.now();
      if ((await read()).status === status) return true;
      if (begun - since > ttlMs) stale.push(begun - since);
      return false;
    },
    { timeoutMs: 60_000, description: `a read answering ${status}` },
  );
  expect(stale, `reads begun this long (ms) after the change, past the ${ttlMs} ms caches`).toEqual([]);
}

async function expectOk(answer: Promise<HttpAnswer>): Promise<HttpAnswer> {
  const settled = await answer;
  expect(settled.status, JSON.stringify(settled.body)).toBeLessThan(300);
  return settled;
}

beforeAll(async () => {
  const env = { FLOWMESH_REGISTRY_READ_CACHE_MS: READ_CACHE_MS, FLOWMESH_JOB_TOKEN_KEY: JOB_TOKEN_KEY };
  cast = await startRegistryCast(env);
  replica = await startRegistryReplica(cast, env);
  const admin = cast.actors.admin.token;
  const owner = cast.actors.owner.token;
  await expectOk(
    writer('POST', '/api/w/main/folders/create', admin, {
      name: 'cache',
      owners: ['u/owner'],
      readers: ['u/reader'],
    }),
  );
  await expectOk(
    writer('POST', '/api/w/main/variables/create', owner, {
      path: 'f/cache/key',
      value: 'key-1',
      is_secret: true,
    }),
  );
  await expectOk(
    writer('POST', '/api/w/main/resources/create', owner, {
      path: 'f/cache/provider',
      resource_type: 'openai',
      value: { api_key: '$var:f/cache/key' },
    }),
  );
  await expectOk(
    writer('POST', '/api/w/main/resources/create', owner, {
      path: AGENT,
      resource_type: 'ai_agent',
      value: {
        provider: { kind: 'openai', resource: '$res:f/cache/provider', model: 'gpt-4o' },
        system_prompt: 'Be brief.',
      },
    }),
  );
});

afterAll(async () => {
  await replica?.stop();
  await cast?.stop();
});

describe('interpolation reads through the read cache', () => {
  it('the registry that writes reads its own write next, whatever was cached', async () => {
    const reader = cast.actors.reader.token;
    const owner = cast.actors.owner.token;
    const read = () => readAgent(writer, reader);
    expect(await read()).toEqual({ status: 200, body: agentValue('key-1') });

    await expectOk(writer('POST', '/api/w/main/variables/update/f/cache/key', owner, { value: 'key-2' }));
    expect(await read()).toEqual({ status: 200, body: agentValue('key-2') });

    await expectOk(
      writer('POST', '/api/w/main/resources/update_value/f/cache/provider', owner, {
        value: { api_key: '$var:f/cache/key', organization_id: 'org-1' },
      }),
    );
    expect(await read()).toEqual({ status: 200, body: agentValue('key-2', 'org-1') });

    // A rename: the old path is gone at once, the new one readable.
    await expectOk(
      writer('POST', '/api/w/main/variables/update/f/cache/key', owner, { path: 'f/cache/key_renamed' }),
    );
    expect((await read()).status).toBe(404);
    expect(await writer('GET', '/api/w/main/variables/get_value/f/cache/key_renamed', reader)).toEqual({
      status: 200,
      body: 'key-2',
    });
    await expectOk(
      writer('POST', '/api/w/main/variables/update/f/cache/key_renamed', owner, { path: 'f/cache/key' }),
    );
    expect(await read()).toEqual({ status: 200, body: agentValue('key-2', 'org-1') });

    // A delete, then a new item at the same path (a cached "missing" is dropped by the create).
    await expectOk(writer('DELETE', '/api/w/main/variables/delete/f/cache/key', owner));
    const missing = await read();
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body)).toContain('cannot resolve $var:f/cache/key');
    expect((await read()).status).toBe(404);
    await expectOk(
      writer('POST', '/api/w/main/variables/create', owner, {
        path: 'f/cache/key',
        value: 'key-3',
        is_secret: true,
      }),
    );
    expect(await read()).toEqual({ status: 200, body: agentValue('key-3', 'org-1') });
  });

  it('another replica sees each write through the item events, long before its ten-minute TTL', async () => {
    const reader = cast.actors.reader.token;
    const owner = cast.actors.owner.token;
    const before = await expectOk(readAgent(other, reader));
    const current = (before.body as ReturnType<typeof agentValue>).provider.resource;

    await expectOk(writer('POST', '/api/w/main/variables/update/f/cache/key', owner, { value: 'key-4' }));
    await expectEventually(
      async () =>
        expect(await readAgent(other, reader)).toEqual({
          status: 200,
          body: agentValue('key-4', current.organization_id),
        }),
      { timeoutMs: EVENT_DELIVERY_MS },
    );

    await expectOk(
      writer('POST', '/api/w/main/resources/update_value/f/cache/provider', owner, {
        value: { api_key: '$var:f/cache/key', organization_id: 'org-2' },
      }),
    );
    await expectEventually(
      async () =>
        expect(await readAgent(other, reader)).toEqual({
          status: 200,
          body: agentValue('key-4', 'org-2'),
        }),
      { timeoutMs: EVENT_DELIVERY_MS },
    );

    await expectOk(
      writer('POST', '/api/w/main/resources/update/f/cache/provider', owner, { path: 'f/cache/provider_2' }),
    );
    await expectEventually(async () => expect((await readAgent(other, reader)).status).toBe(404), {
      timeoutMs: EVENT_DELIVERY_MS,
    });
    await expectOk(
      writer('POST', '/api/w/main/resources/update/f/cache/provider_2', owner, { path: 'f/cache/provider' }),
    );
    await expectEventually(async () => expect((await readAgent(other, reader)).status).toBe(200), {
      timeoutMs: EVENT_DELIVERY_MS,
    });

    await expectOk(writer('DELETE', '/api/w/main/variables/delete/f/cache/key', owner));
    await expectEventually(async () => expect((await readAgent(other, reader)).status).toBe(404), {
      timeoutMs: EVENT_DELIVERY_MS,
    });
    await expectOk(
      writer('POST', '/api/w/main/variables/create', owner, {
        path: 'f/cache/key',
        value: 'key-5',
        is_secret: true,
      }),
    );
    await expectEventually(
      async () =>
        expect(await readAgent(other, reader)).toEqual({
          status: 200,
          body: agentValue('key-5', 'org-2'),
        }),
      { timeoutMs: EVENT_DELIVERY_MS },
    );
  }, 120_000);

  it('cached rows never stand in for the access check: each caller is checked on every read', async () => {
    for (const http of [writer, other]) {
      await expectOk(readAgent(http, cast.actors.owner.token));
      const stranger = await readAgent(http, cast.actors.stranger.token);
      expect(stranger.status).toBe(404);
      expect(JSON.stringify(stranger.body)).not.toContain('key-');
      // A job token whose scopes stop at f/team/ reads nothing here, its owner's rights notwithstanding.
      expect((await readAgent(http, cast.actors.job.token)).status).toBe(404);
    }
  });

  it('a folder role taken away: the next read on the writer is refused, on another replica within the folder cache', async () => {
    const { token, username } = await cast.addUser(cast.unique('fading'));
    const admin = cast.actors.admin.token;
    const granted = Date.now();
    await expectOk(
      writer('POST', '/api/w/main/folders/update/cache', admin, { readers: ['u/reader', `u/${username}`] }),
    );
    await expectOk(readAgent(writer, token));
    await expectAnswerWithinTtl(() => readAgent(other, token), 200, granted, IDENTITY_TTL_MS);

    const changed = Date.now();
    await expectOk(writer('POST', '/api/w/main/folders/update/cache', admin, { readers: ['u/reader'] }));
    expect((await readAgent(writer, token)).status).toBe(404);
    await expectAnswerWithinTtl(() => readAgent(other, token), 404, changed, IDENTITY_TTL_MS);
    // The others keep reading.
    expect((await readAgent(other, cast.actors.reader.token)).status).toBe(200);
  }, 120_000);

  it('a token revoked: the next read on the writer is unauthenticated, on another replica within the auth cache', async () => {
    const created = await cast.registry.createApiToken({
      actor: { token: cast.actors.admin.token },
      workspace: 'main',
      username: 'reader',
      label: cast.unique('revoked_soon'),
    });
    await expectOk(readAgent(writer, created.token));
    await expectOk(readAgent(other, created.token));

    const revoked = Date.now();
    await expectOk(writer('DELETE', `/api/w/main/tokens/delete/${created.prefix}`, created.token));
    expect((await readAgent(writer, created.token)).status).toBe(401);
    await expectAnswerWithinTtl(() => readAgent(other, created.token), 401, revoked, IDENTITY_TTL_MS);
  }, 120_000);

  it("a read between a write and its commit does not leave the old row cached (the transaction's end drops it again)", async () => {
    const app = cast.service.running.app;
    const identity: CallerIdentity = await app
      .get(AccessService)
      .authenticate(cast.actors.owner.token, 'main');
    const read = app.get(ReadVariablesUseCase);
    const write = app.get(WriteVariablesUseCase);
    await write.update(identity, 'f/cache/key', { value: 'before-commit' });
    expect(await read.getValue(identity, 'f/cache/key')).toBe('before-commit');

    await cast.dataSource.transaction(async (manager) => {
      await write.update(identity, 'f/cache/key', { value: 'after-commit' }, { manager });
      // Outside the transaction the committed row is still the old one, and this read caches it.
      expect(await read.getValue(identity, 'f/cache/key')).toBe('before-commit');
    });
    expect(await read.getValue(identity, 'f/cache/key')).toBe('after-commit');

    // A write that rolls back changes nothing, cached or not.
    await cast.dataSource
      .transaction(async (manager) => {
        await write.update(identity, 'f/cache/key', { value: 'rolled-back' }, { manager });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await read.getValue(identity, 'f/cache/key')).toBe('after-commit');
  });
});
