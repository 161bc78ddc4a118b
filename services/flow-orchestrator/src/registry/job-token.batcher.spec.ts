import { MeshError, type RegistryIdentityClient } from '@flowmesh/contracts';
import { describe, expect, it, vi } from 'vitest';
import { JobTokenBatcher } from './job-token.batcher.js';

const request = (jobId: string, onBehalfOf = 'u/alice') => ({
  actor: { token: 'tok' },
  workspace: 'main',
  jobId,
  onBehalfOf,
  ttlSeconds: 60,
});

function fakeRegistry(overrides: Partial<RegistryIdentityClient> = {}) {
  const issueJobToken = vi.fn((req: { jobId: string }) =>
    Promise.resolve({ token: `t-${req.jobId}`, expiresAt: 'x' }),
  );
  const issueJobTokens = vi.fn(({ requests }: { requests: Array<{ jobId: string; onBehalfOf: string }> }) =>
    Promise.resolve({
      results: requests.map((req) =>
        req.onBehalfOf === 'u/mallory'
          ? { ok: false as const, error: { code: 'PERMISSION_DENIED' as const, message: 'no' } }
          : { ok: true as const, token: `b-${req.jobId}`, expiresAt: 'x' },
      ),
    }),
  );
  return {
    issueJobToken,
    issueJobTokens,
    client: { issueJobToken, issueJobTokens, ...overrides } as unknown as RegistryIdentityClient,
  };
}

describe('JobTokenBatcher', () => {
  it('asks once for the requests of one turn, and once more for those that came while it was asked', async () => {
    const registry = fakeRegistry();
    const batcher = new JobTokenBatcher(registry.client);
    const first = [batcher.issue(request('a')), batcher.issue(request('b')), batcher.issue(request('c'))];
    await new Promise((resolve) => setImmediate(resolve));
    // In flight now: these wait for it, then go together.
    const second = [batcher.issue(request('d')), batcher.issue(request('e'))];
    expect((await Promise.all([...first, ...second])).map((issued) => issued.token)).toEqual([
      'b-a',
      'b-b',
      'b-c',
      'b-d',
      'b-e',
    ]);
    expect(registry.issueJobTokens).toHaveBeenCalledTimes(2);
    expect(registry.issueJobToken).not.toHaveBeenCalled();
  });

  it('refuses only the request the registry refused', async () => {
    const batcher = new JobTokenBatcher(fakeRegistry().client);
    const [ok, refused] = await Promise.allSettled([
      batcher.issue(request('a')),
      batcher.issue(request('b', 'u/mallory')),
    ]);
    expect(ok).toEqual({ status: 'fulfilled', value: { token: 'b-a', expiresAt: 'x' } });
    expect(refused.status === 'rejected' && refused.reason).toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('asks alone for a lone request, and one by one when the batch as a whole is refused', async () => {
    const registry = fakeRegistry({
      issueJobTokens: vi.fn(() => Promise.reject(new MeshError('VALIDATION_FAILED', 'bad item'))),
    });
    const batcher = new JobTokenBatcher(registry.client);
    expect(await batcher.issue(request('solo'))).toEqual({ token: 't-solo', expiresAt: 'x' });
    const tokens = await Promise.all([batcher.issue(request('a')), batcher.issue(request('b'))]);
    expect(tokens.map((issued) => issued.token)).toEqual(['t-a', 't-b']);
    expect(registry.issueJobToken).toHaveBeenCalledTimes(3);
  });

  it('fails every request of a batch that timed out', async () => {
    const timeout = new MeshError('TIMEOUT', 'no reply');
    const batcher = new JobTokenBatcher(
      fakeRegistry({ issueJobTokens: vi.fn(() => Promise.reject(timeout)) }).client,
    );
    const outcomes = await Promise.allSettled([batcher.issue(request('a')), batcher.issue(request('b'))]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: timeout },
      { status: 'rejected', reason: timeout },
    ]);
  });
});
