import { describe, expect, it } from 'vitest';
import { LocalClaims } from './local-claims.js';

describe('LocalClaims', () => {
  it('lets one holder claim a job at a time', () => {
    const claims = new LocalClaims();
    expect(claims.claim('a')).toBe(true);
    expect(claims.claim('a')).toBe(false);
    claims.release('a');
    expect(claims.claim('a')).toBe(true);
  });

  it('keeps a wake-up for the holder until it looks again, once per wake-up', () => {
    const claims = new LocalClaims();
    claims.claim('a');
    expect(claims.keepIfPoked('a')).toBe(false);
    expect(claims.poke('a')).toBe(true);
    expect(claims.poke('a')).toBe(true);
    // Two wake-ups while it drove: one more look covers both.
    expect(claims.keepIfPoked('a')).toBe(true);
    expect(claims.keepIfPoked('a')).toBe(false);
    expect(claims.has('a')).toBe(true);
  });

  it('has nothing to poke when no one here holds the job', () => {
    const claims = new LocalClaims();
    expect(claims.poke('a')).toBe(false);
    claims.claim('a');
    claims.poke('a');
    claims.release('a');
    // A wake-up of a holder that is gone does not reach the next one.
    claims.claim('a');
    expect(claims.keepIfPoked('a')).toBe(false);
  });
});
