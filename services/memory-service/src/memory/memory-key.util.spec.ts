import { MEMORY_KEY_NAMESPACE } from '@flowmesh/contracts';
import { v5 as uuidv5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { resolveMemoryKey } from './memory-key.util.js';

describe('resolveMemoryKey', () => {
  it('keeps a uuid as is, in lower case, whatever the flow', () => {
    const id = '3F2504E0-4F89-41D3-9A0C-0305E82C3301';
    expect(resolveMemoryKey('main', 'f/a/chat', id)).toEqual({ memoryId: id.toLowerCase(), hashed: false });
    expect(resolveMemoryKey('other', 'u/bob/x', id).memoryId).toBe(id.toLowerCase());
  });

  it('hashes any other string to a v5 uuid of [workspace, flow, key] in the documented namespace', () => {
    const { memoryId, hashed } = resolveMemoryKey('main', 'f/a/chat', 'customer-42');
    expect(hashed).toBe(true);
    expect(memoryId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(memoryId).toBe(uuidv5('["main","f/a/chat","customer-42"]', MEMORY_KEY_NAMESPACE));
    expect(resolveMemoryKey('main', 'f/a/chat', 'customer-42').memoryId).toBe(memoryId);
  });

  it('scopes a string key by flow and by workspace', () => {
    const base = resolveMemoryKey('main', 'f/a/chat', 'k').memoryId;
    expect(resolveMemoryKey('main', 'f/a/other', 'k').memoryId).not.toBe(base);
    expect(resolveMemoryKey('dev', 'f/a/chat', 'k').memoryId).not.toBe(base);
    expect(resolveMemoryKey('main', 'f/a/chat', 'K').memoryId).not.toBe(base);
  });

  it('cannot be made to collide by moving separators between the flow and the key', () => {
    expect(resolveMemoryKey('main', 'f/a/b', 'c').memoryId).not.toBe(
      resolveMemoryKey('main', 'f/a', 'b/c').memoryId,
    );
  });

  it('treats a near-uuid as a plain string', () => {
    expect(resolveMemoryKey('main', 'f/a/chat', '3f2504e0-4f89-41d3-9a0c-0305e82c330').hashed).toBe(true);
  });
});
