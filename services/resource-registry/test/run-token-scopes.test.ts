import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistryCast, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;

beforeAll(async () => {
  cast = await startRegistryCast();
});

afterAll(async () => {
  await cast?.stop();
});

const main = (token: string) => ({ actor: { token }, workspace: 'main' });

// Run tokens (Windmill's webhook-specific tokens): `jobs:run:<path>` scopes let a token start
// runs of those paths, and such a run acts with its user's own permissions.
describe('job tokens for a run token', () => {
  const issue = async (token: string, extra: { runPath?: string; scopes?: string[] } = {}) => {
    const { token: jobToken } = await cast.registry.issueJobToken({
      ...main(token),
      jobId: cast.unique('job'),
      onBehalfOf: 'u/owner',
      ttlSeconds: 60,
      ...extra,
    });
    return cast.registry.authenticate({ token: jobToken, workspace: 'main' });
  };
  const tokenWith = async (scopes: string[]) =>
    (
      await cast.registry.createApiToken({
        ...main(cast.actors.owner.token),
        label: cast.unique('t'),
        scopes,
      })
    ).token;

  it("act with the user's permissions for a path the run scopes cover, narrowed only as asked", async () => {
    const runToken = await tokenWith(['jobs:run:u/owner/hook*']);
    const covered = await issue(runToken, { runPath: 'u/owner/hook_a' });
    expect(covered).toMatchObject({ kind: 'job', onBehalfOf: 'u/owner' });
    expect(covered.scopes).toBeUndefined();
    const narrowed = await issue(runToken, { runPath: 'u/owner/hook', scopes: ['variables:read'] });
    expect(narrowed.scopes).toEqual(['variables:read']);
    // Windmill's form names the kind: a flows-only scope covers no script.
    const flowsOnly = await tokenWith(['jobs:run:flows:u/owner/hook']);
    expect((await issue(flowsOnly, { runPath: 'u/owner/hook', runKind: 'flows' })).scopes).toBeUndefined();
    expect((await issue(flowsOnly, { runPath: 'u/owner/hook', runKind: 'scripts' })).scopes).toEqual([
      'jobs:run:flows:u/owner/hook',
    ]);
  });

  it('keep the token scopes for any other path, without a path, or without a run scope', async () => {
    const runToken = await tokenWith(['jobs:run:u/owner/hook*']);
    expect((await issue(runToken, { runPath: 'u/owner/other' })).scopes).toEqual(['jobs:run:u/owner/hook*']);
    expect((await issue(runToken)).scopes).toEqual(['jobs:run:u/owner/hook*']);
    const reader = await tokenWith(['flows:read', 'jobs:read:u/owner/hook']);
    expect((await issue(reader, { runPath: 'u/owner/hook' })).scopes).toEqual([
      'flows:read',
      'jobs:read:u/owner/hook',
    ]);
    // Asking for more than the token holds is still refused.
    await expect(
      issue(reader, { runPath: 'u/owner/hook', scopes: ['variables:write'] }),
    ).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  });
});
