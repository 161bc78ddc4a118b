import { STREAMS } from '@flowmesh/contracts';
import { MESH_CONNECTION, outboxTablePath, type MeshConnection } from '@flowmesh/messaging';
import { startFakeOpenAI, waitFor, type FakeOpenAI } from '@flowmesh/testing';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialsInvalidationListener } from '../src/credentials/credentials-invalidation.listener.js';
import { startGatewayCast, WORKSPACE, type GatewayCast } from './support/gateway-cast.js';

/**
 * A cached credentials entry is also the decision that its caller may read the resource. The
 * gateway here keeps entries for ten minutes, so a call refused within seconds of a revocation
 * was refused because the registry's `evt.identity.*` event dropped the entry (or the token's
 * own expiry bounded it), never because the time to live ran out.
 */
const CREDENTIALS_TTL_MS = '600000';
/** Far past an event crossing NATS on a busy machine, and still a tenth of the time to live. */
const REFUSED_WITHIN_MS = 60_000;

// Each test waits for the drops of the changes before it to settle, then for a refusal.
describe('llm-gateway: cached permission decisions end with a revocation', { timeout: 150_000 }, () => {
  let cast: GatewayCast;
  let fake: FakeOpenAI;
  /** Interpolation requests the gateway sent to the registry (each is a credential cache miss). */
  let registryReads = 0;
  const inMain = () => ({ actor: cast.admin, workspace: WORKSPACE });

  /** One chat completion through the gateway as `token`; the HTTP status. */
  const call = async (token: string, resource: string): Promise<number> => {
    const response = await fetch(`${cast.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...cast.headers(resource),
      },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.arrayBuffer();
    return response.status;
  };

  /** Registry reads so far, every request the registry was sent before now counted. */
  const readsSoFar = async (): Promise<number> => {
    await cast.registry.conn.nc.flush();
    return registryReads;
  };

  /**
   * Until no change made so far can still drop a cached entry: the registry published every
   * event it wrote (none left unpublished in its outbox), the gateway heard each on both of its
   * paths (its own subscription, flushed; its durable consumers, nothing pending or unacked),
   * and each second drop, INVALIDATION_SETTLE_MS after its event, is done. From then on only a
   * new event drops an entry, so a refusal after a revocation is that revocation's doing.
   */
  const settled = () => {
    const registryDb = cast.registry.running.app.get(DataSource);
    const gateway = cast.gateway.running.app;
    const gatewayConn = gateway.get<MeshConnection>(MESH_CONNECTION);
    const listener = gateway.get(CredentialsInvalidationListener);
    const events = gatewayConn.space.streamName(STREAMS.events.name);
    return waitFor(
      async () => {
        const [{ unpublished }] = await registryDb.query<Array<{ unpublished: number }>>(
          `SELECT count(*)::int AS unpublished FROM ${outboxTablePath(registryDb)} WHERE published_at IS NULL`,
        );
        if (unpublished > 0) return false;
        await gatewayConn.nc.flush();
        for await (const consumer of gatewayConn.jsm.consumers.list(events)) {
          if (!consumer.name.includes('llm-gateway-credentials')) continue;
          if (consumer.num_pending > 0 || consumer.num_ack_pending > 0) return false;
        }
        return listener.pendingDrops === 0;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the drops of the changes so far to settle' },
    );
  };

  /** Two calls succeed, the second from the cache (no registry read): the decision is cached. */
  const expectCachedSuccess = async (token: string, resource: string) => {
    await settled();
    expect(await call(token, resource)).toBe(200);
    const reads = await readsSoFar();
    expect(await call(token, resource)).toBe(200);
    expect(await readsSoFar(), 'the second call was answered from the credentials cache').toBe(reads);
  };

  /** Calls until one is refused (well within the time to live), then checks how. */
  const expectRefused = async (
    token: string,
    resource: string,
    status: number,
    description: string,
    timeoutMs = REFUSED_WITHIN_MS,
  ) => {
    const refused = await waitFor(
      async () => {
        const answer = await call(token, resource);
        return answer === 200 ? undefined : answer;
      },
      { timeoutMs, description },
    );
    expect(refused).toBe(status);
  };

  /** A new member with a token, in group `group` when given. */
  const member = async (username: string, group?: string): Promise<string> => {
    await cast.identity.addUser({ ...inMain(), email: `${username}@example.test`, username, isAdmin: false });
    if (group) await cast.identity.addGroupMember({ ...inMain(), name: group, username });
    return (await cast.identity.createApiToken({ ...inMain(), username, label: 'revocation-test' })).token;
  };

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.setDefaultReply({ text: 'ok' });
    cast = await startGatewayCast({
      gatewayEnv: { FLOWMESH_GATEWAY_CREDENTIALS_TTL_MS: CREDENTIALS_TTL_MS },
    });
    const conn = cast.registry.conn;
    conn.nc.subscribe(conn.space.subject('registry.resource.resolve'), {
      callback: () => {
        registryReads++;
      },
    });
    await cast.providerResource('f/ai/openai', 'openai', { base_url: `${fake.url}/v1` }, 'sk-test-aaaaaaaa');
    await cast.identity.createGroup({ ...inMain(), name: 'team' });
    await cast.identity.createFolder({ ...inMain(), name: 'team_ai', readers: ['g/team'] });
    await cast.providerResource(
      'f/team_ai/openai',
      'openai',
      { base_url: `${fake.url}/v1` },
      'sk-test-bbbbbbbb',
    );
  });

  afterAll(async () => {
    await cast?.stop();
    await fake?.close();
  });

  it('refuses a revoked API token on its next call, and leaves other callers cached', async () => {
    const made = await cast.identity.createApiToken({ ...inMain(), username: 'reader', label: 'to revoke' });
    await expectCachedSuccess(made.token, 'f/ai/openai');
    await expectCachedSuccess(cast.admin.token, 'f/ai/openai');

    await cast.identity.revokeApiToken({ actor: cast.reader, workspace: WORKSPACE, prefix: made.prefix });
    await expectRefused(made.token, 'f/ai/openai', 401, 'the revoked token refused (401)');

    // Another account's entry was not dropped: still answered from the cache.
    const reads = await readsSoFar();
    expect(await call(cast.admin.token, 'f/ai/openai')).toBe(200);
    expect(await readsSoFar()).toBe(reads);
  });

  it('refuses a member removed from the group that gave it access', async () => {
    const token = await member('grouped', 'team');
    await expectCachedSuccess(token, 'f/team_ai/openai');

    await cast.identity.removeGroupMember({ ...inMain(), name: 'team', username: 'grouped' });
    await expectRefused(
      token,
      'f/team_ai/openai',
      404,
      'the former member refused (404, as a missing resource)',
    );
  });

  it("refuses a group's members once the folder no longer grants the group a role", async () => {
    const token = await member('foldered', 'team');
    await expectCachedSuccess(token, 'f/team_ai/openai');

    await cast.identity.updateFolder({ ...inMain(), name: 'team_ai', readers: [] });
    try {
      await expectRefused(token, 'f/team_ai/openai', 404, 'refused once g/team lost its role (404)');
    } finally {
      await cast.identity.updateFolder({ ...inMain(), name: 'team_ai', readers: ['g/team'] });
    }
  });

  it('refuses a member removed from the workspace', async () => {
    const token = await member('leaver');
    await cast.identity.updateFolder({ ...inMain(), name: 'ai', readers: ['u/reader', 'u/leaver'] });
    await expectCachedSuccess(token, 'f/ai/openai');

    await cast.identity.removeUser({ ...inMain(), username: 'leaver' });
    await expectRefused(
      token,
      'f/ai/openai',
      404,
      'the removed member refused (404: no such workspace for it)',
    );
  });

  it('keeps no decision past the expiry of the token it was made from', async () => {
    // Settled first: the token's few seconds go to the two calls, not to the earlier tests' drops.
    await settled();
    const job = await cast.identity.issueJobToken({
      actor: cast.reader,
      workspace: WORKSPACE,
      jobId: 'revocation-test-job',
      onBehalfOf: 'u/reader',
      ttlSeconds: 10,
    });
    await expectCachedSuccess(job.token, 'f/ai/openai');
    await expectRefused(job.token, 'f/ai/openai', 401, 'the expired job token refused (401)');
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(job.expiresAt));
  });
});
