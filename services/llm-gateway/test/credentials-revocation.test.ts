import { startFakeOpenAI, waitFor, type FakeOpenAI } from '@flowmesh/testing';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALIDATION_SETTLE_MS } from '../src/credentials/credentials-invalidation.listener.js';
import { startGatewayCast, WORKSPACE, type GatewayCast } from './support/gateway-cast.js';

/**
 * A cached credentials entry is also the decision that its caller may read the resource. The
 * gateway here keeps entries for ten minutes, so a call refused within seconds of a revocation
 * was refused because the registry's `evt.identity.*` event dropped the entry (or the token's
 * own expiry bounded it), never because the time to live ran out.
 */
const CREDENTIALS_TTL_MS = '600000';
/** Well within the time to live: an event crossing NATS on a busy machine. */
const REFUSED_WITHIN_MS = 5_000;

describe('llm-gateway: cached permission decisions end with a revocation', () => {
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

  /**
   * Two calls succeed, the second from the cache (no registry read): the decision is cached.
   * First the gateway's second drop after the set-up's own events has to pass.
   */
  const expectCachedSuccess = async (token: string, resource: string) => {
    await delay(INVALIDATION_SETTLE_MS + 250);
    expect(await call(token, resource)).toBe(200);
    const reads = registryReads;
    expect(await call(token, resource)).toBe(200);
    expect(registryReads, 'the second call was answered from the credentials cache').toBe(reads);
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
    conn.nc.subscribe(conn.space.subject('registry.resource.get_value_interpolated'), {
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
    const reads = registryReads;
    expect(await call(cast.admin.token, 'f/ai/openai')).toBe(200);
    expect(registryReads).toBe(reads);
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
    const job = await cast.identity.issueJobToken({
      actor: cast.reader,
      workspace: WORKSPACE,
      jobId: 'revocation-test-job',
      onBehalfOf: 'u/reader',
      ttlSeconds: 5,
    });
    await expectCachedSuccess(job.token, 'f/ai/openai');
    await expectRefused(job.token, 'f/ai/openai', 401, 'the expired job token refused (401)', 8_000);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(job.expiresAt));
  });
});
