import type { RegistryItemsClient } from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, errorOf, itemsClient } from './support/items-support.js';
import { startRegistryCast, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;
let items: RegistryItemsClient;

const tool = {
  id: 'private_lookup',
  summary: 'private_lookup',
  value: {
    tool_type: 'flowmodule',
    type: 'script',
    path: 'u/owner/lookup',
    // A default only the owner could resolve: it stays as written, resolved when the tool runs.
    input_transforms: { token: { type: 'static', value: '$var:u/owner/private' } },
  },
};

beforeAll(async () => {
  cast = await startRegistryCast({ FLOWMESH_REGISTRY_MAX_INTERPOLATION_DEPTH: '3' });
  items = itemsClient(cast);
  const owner = as(cast, cast.actors.owner);
  await items.createVariable({
    ...owner,
    path: 'f/team/openai_key',
    value: 'team-openai-key',
    is_secret: true,
  });
  await items.createVariable({ ...owner, path: 'u/owner/private', value: 'owner-only', is_secret: true });
  await items.createResource({
    ...owner,
    path: 'f/team/openai',
    resource_type: 'openai',
    value: { api_key: '$var:f/team/openai_key' },
  });
  await items.createResource({
    ...owner,
    path: 'f/team/agent',
    resource_type: 'ai_agent',
    value: {
      provider: { kind: 'openai', resource: '$res:f/team/openai', model: 'gpt-4o' },
      system_prompt: 'Be brief.',
      tools: [tool],
    },
  });
  await items.createResource({
    ...owner,
    path: 'f/team/leaky',
    resource_type: 'state',
    value: { key: '$var:u/owner/private' },
  });
  await items.createResource({
    ...owner,
    path: 'f/team/c1',
    resource_type: 'state',
    value: { next: '$res:f/team/c2' },
  });
  await items.createResource({
    ...owner,
    path: 'f/team/c2',
    resource_type: 'state',
    value: ['$res:f/team/c1'],
  });
  for (const [from, to] of [
    ['d1', 'd2'],
    ['d2', 'd3'],
    ['d3', 'd4'],
  ]) {
    await items.createResource({
      ...owner,
      path: `f/team/${from}`,
      resource_type: 'state',
      value: `$res:f/team/${to}`,
    });
  }
  await items.createResource({ ...owner, path: 'f/team/d4', resource_type: 'state', value: 'bottom' });
});

afterAll(async () => {
  await cast?.stop();
});

const reader = () => as(cast, cast.actors.reader);

describe('interpolation', () => {
  it("an agent's brain resolves through nested references as the caller; its tools stay as written", async () => {
    const { value } = await items.getResourceValueInterpolated({ ...reader(), path: 'f/team/agent' });
    expect(value).toEqual({
      provider: { kind: 'openai', resource: { api_key: 'team-openai-key' }, model: 'gpt-4o' },
      system_prompt: 'Be brief.',
      tools: [tool],
    });
    const http = await cast.http(
      'GET',
      '/api/w/main/resources/get_value_interpolated/f/team/agent',
      cast.actors.job.token,
    );
    expect(http).toEqual({ status: 200, body: value });
  });

  it('a reference the caller may not read fails exactly like one that does not exist, naming it', async () => {
    const forbidden = await errorOf(() =>
      items.getResourceValueInterpolated({ ...reader(), path: 'f/team/leaky' }),
    );
    expect(forbidden.toEnvelope()).toEqual({
      code: 'NOT_FOUND',
      message: 'cannot resolve $var:u/owner/private (at key in $res:f/team/leaky): not found',
      details: { reference: '$var:u/owner/private' },
    });
    const missing = await errorOf(() =>
      items.interpolate({ ...reader(), value: { key: '$var:u/owner/no_such_thing' } }),
    );
    const hidden = await errorOf(() =>
      items.interpolate({ ...reader(), value: { key: '$var:u/owner/private' } }),
    );
    expect(hidden.toEnvelope()).toEqual({
      ...missing.toEnvelope(),
      message: missing.message.replace('no_such_thing', 'private'),
      details: { reference: '$var:u/owner/private' },
    });
    expect(JSON.stringify(hidden.toEnvelope())).not.toContain('owner-only');
    // The owner reads it.
    expect(
      (await items.getResourceValueInterpolated({ ...as(cast, cast.actors.owner), path: 'f/team/leaky' }))
        .value,
    ).toEqual({ key: 'owner-only' });
  });

  it('resolve answers who the caller is, the type and the value as the caller, with the same checks', async () => {
    const resolved = await items.resolveResource({ ...reader(), path: 'f/team/openai' });
    expect(resolved).toEqual({
      identity: expect.objectContaining({
        kind: 'user',
        username: 'reader',
        tokenExpiresAt: null,
      }) as unknown,
      resource_type: 'openai',
      value: { api_key: 'team-openai-key' },
    });
    // A job token: its identity and expiry, as `registry.auth.authenticate` answers them.
    const asJob = await items.resolveResource({ ...as(cast, cast.actors.job), path: 'f/team/openai' });
    expect(asJob.identity).toMatchObject({ kind: 'job', username: 'owner', jobId: 'job-cast' });
    expect(Date.parse(asJob.identity.tokenExpiresAt ?? '')).toBeGreaterThan(Date.now());
    // Someone who may not read the resource learns no more than from a missing one.
    const stranger = as(cast, cast.actors.stranger);
    const hidden = await errorOf(() => items.resolveResource({ ...stranger, path: 'f/team/openai' }));
    const missing = await errorOf(() => items.resolveResource({ ...stranger, path: 'f/team/nothing' }));
    expect(hidden.code).toBe('NOT_FOUND');
    expect(hidden.message).toBe(missing.message.replace('nothing', 'openai'));
    expect(JSON.stringify(hidden.toEnvelope())).not.toContain('team-openai-key');
    // A reference the caller may not read fails it, as it fails get_value_interpolated.
    expect(await errorOf(() => items.resolveResource({ ...reader(), path: 'f/team/leaky' }))).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(
      await errorOf(() => items.resolveResource({ ...as(cast, cast.actors.revoked), path: 'f/team/openai' })),
    ).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('a cycle is an error naming the chain', async () => {
    expect(
      await errorOf(() => items.getResourceValueInterpolated({ ...reader(), path: 'f/team/c1' })),
    ).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'interpolation cycle: $res:f/team/c1 -> $res:f/team/c2 -> $res:f/team/c1',
    });
  });

  it('stops at FLOWMESH_REGISTRY_MAX_INTERPOLATION_DEPTH resources in one chain', async () => {
    expect((await items.interpolate({ ...reader(), value: '$res:f/team/d2' })).value).toBe('bottom');
    const error = await errorOf(() => items.interpolate({ ...reader(), value: { deep: '$res:f/team/d1' } }));
    expect(error).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message:
        'interpolation deeper than 3 resources: $res:f/team/d1 -> $res:f/team/d2 -> $res:f/team/d3 -> $res:f/team/d4',
    });
    const http = await cast.http(
      'GET',
      '/api/w/main/resources/get_value_interpolated/f/team/d1',
      cast.actors.reader.token,
    );
    expect(http.status).toBe(413);
  });

  it('resolves only what is asked: other strings, numbers and embedded mentions pass through', async () => {
    const value = {
      a: 'plain',
      b: 3,
      c: 'Bearer $var:f/team/openai_key',
      d: ['$var:f/team/openai_key'],
      e: null,
    };
    expect((await items.interpolate({ ...reader(), value })).value).toEqual({
      ...value,
      d: ['team-openai-key'],
    });
  });
});
