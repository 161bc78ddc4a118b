import { describe, expect, it } from 'vitest';
import { migrationLockKey } from './migration-lock.js';

describe('migrationLockKey', () => {
  it('is stable for a schema across runs and code versions', () => {
    // Pinned: changing the derivation would let an old and a new replica migrate at once.
    expect(migrationLockKey('flow_orchestrator')).toBe(migrationLockKey('flow_orchestrator'));
    expect(migrationLockKey('registry').toString()).toMatchInlineSnapshot(`"487202339012961881"`);
  });

  it('differs between schemas and fits a signed bigint', () => {
    const a = migrationLockKey('registry');
    const b = migrationLockKey('memory');
    expect(a).not.toBe(b);
    for (const key of [a, b]) {
      expect(key >= -(2n ** 63n) && key < 2n ** 63n).toBe(true);
    }
  });
});
