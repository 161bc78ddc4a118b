import { describe, expect, it } from 'vitest';
import { resolveMemoryKey } from './memory-key.util.js';

describe('resolveMemoryKey (Windmill’s memory_key)', () => {
  it('keeps a uuid as is, in lower case, whatever the flow, in every form Windmill reads', () => {
    const id = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    expect(resolveMemoryKey('main', 'f/a/chat', id.toUpperCase())).toEqual({ memoryId: id, hashed: false });
    expect(resolveMemoryKey('other', 'u/bob/x', id).memoryId).toBe(id);
    for (const form of [id.replaceAll('-', ''), `{${id}}`, `urn:uuid:${id}`, `  ${id}\n`])
      expect(resolveMemoryKey('main', '', form)).toEqual({ memoryId: id, hashed: false });
  });

  it('hashes any other string exactly as Windmill does', () => {
    // Expected ids computed apart, with Python's uuid.uuid5(namespace, "ws\0path\0key\0").
    expect(resolveMemoryKey('ws', 'f/support/triage', 'customer-1')).toEqual({
      memoryId: '66ad5c39-7f75-5090-bdc3-3a97356f7011',
      hashed: true,
    });
    expect(resolveMemoryKey('main', 'f/a/chat', 'customer-42').memoryId).toBe(
      '52beb123-58c2-5574-bd8e-7fce17725388',
    );
    // A preview run without a path: the flow path is empty.
    expect(resolveMemoryKey('main', '', 'chat-1').memoryId).toBe('d46e3eb9-da53-5e97-a1df-6417ce0b0009');
  });

  it('trims the key, and scopes a string key by flow and by workspace', () => {
    const base = resolveMemoryKey('main', 'f/a/chat', 'k').memoryId;
    expect(resolveMemoryKey('main', 'f/a/chat', ' k ').memoryId).toBe(base);
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
    expect(resolveMemoryKey('main', 'f/a/chat', '3f2504e0-4f8941d3-9a0c-0305e82c3301').hashed).toBe(true);
  });
});
