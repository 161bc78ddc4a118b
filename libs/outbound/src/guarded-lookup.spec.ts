import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { createGuardedLookup, type ResolveAll } from './guarded-lookup.js';
import { OutboundPolicy } from './outbound-policy.js';
import { OutboundRefusedError } from './outbound-refused.error.js';

function resolver(answers: Record<string, LookupAddress[]>): ResolveAll & { calls: string[] } {
  const calls: string[] = [];
  const resolve: ResolveAll = (hostname, _options, callback) => {
    calls.push(hostname);
    const found = answers[hostname];
    if (found) callback(null, found);
    else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
  };
  return Object.assign(resolve, { calls });
}

function lookupOnce(
  lookup: ReturnType<typeof createGuardedLookup>,
  host: string,
  all: boolean,
): Promise<{ error: Error | null; address: unknown; family?: number }> {
  return new Promise((resolve) => {
    lookup(host, { all }, (error, address, family) => resolve({ error, address, family }));
  });
}

describe('createGuardedLookup', () => {
  const answers = {
    'api.example.com': [{ address: '93.184.216.34', family: 4 }],
    'rebind.example.com': [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ],
    'local.example.com': [{ address: '::1', family: 6 }],
  };

  it('hands the socket the checked address, in both lookup forms', async () => {
    const lookup = createGuardedLookup(new OutboundPolicy(), resolver(answers));
    expect(await lookupOnce(lookup, 'api.example.com', false)).toEqual({
      error: null,
      address: '93.184.216.34',
      family: 4,
    });
    expect((await lookupOnce(lookup, 'api.example.com', true)).address).toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
  });

  it('refuses a name with any internal address, naming the host but not what it resolved to', async () => {
    const lookup = createGuardedLookup(new OutboundPolicy(), resolver(answers));
    const { error } = await lookupOnce(lookup, 'rebind.example.com', true);
    expect(error).toBeInstanceOf(OutboundRefusedError);
    expect(error).toMatchObject({ reason: 'private', address: '10.0.0.7' });
    expect(error?.message).toBe(
      'outbound request to "rebind.example.com" refused: not an allowed destination',
    );
  });

  it('lets the allow-list through', async () => {
    const lookup = createGuardedLookup(new OutboundPolicy('::1/128'), resolver(answers));
    expect((await lookupOnce(lookup, 'local.example.com', false)).address).toBe('::1');
  });

  it('refuses metadata names without resolving them, and passes DNS failures on', async () => {
    const resolve = resolver(answers);
    const lookup = createGuardedLookup(new OutboundPolicy('0.0.0.0/0'), resolve);
    expect((await lookupOnce(lookup, 'metadata.google.internal', false)).error).toMatchObject({
      reason: 'metadata_host',
    });
    expect(resolve.calls).toEqual([]);
    expect((await lookupOnce(lookup, 'missing.example.com', false)).error).toMatchObject({
      code: 'ENOTFOUND',
    });
  });
});
