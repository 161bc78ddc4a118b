import type { ChatMessage } from '@flowmesh/contracts';
import { describe, expect, it, vi } from 'vitest';
import type { FlowAccess } from '../access/flow-access.service.js';
import { ObjectStorageError } from '../storage/object-storage.port.js';
import type { MemoryStore } from './memory.store.js';
import { SaveMemoryUseCase } from './save-memory.use-case.js';

const user = (text: string): ChatMessage => ({ role: 'user', content: [{ type: 'text', text }] });

function setup(write: MemoryStore['write']) {
  const access = { assertAllowed: vi.fn().mockResolvedValue(undefined) } as unknown as FlowAccess;
  const store = {
    kind: 's3',
    capacityBytes: null,
    databaseCapacityBytes: 100,
    write: vi.fn(write),
    writeToDatabase: vi.fn().mockResolvedValue({ version: 4, replacedVersion: 3 }),
    currentVersion: vi.fn().mockResolvedValue(3),
  };
  const service = new SaveMemoryUseCase(access, store as unknown as MemoryStore);
  const command = {
    actor: { token: 't' },
    workspace: 'main',
    flowPath: 'f/a/chat',
    memoryKey: 'k',
    stepId: 'a',
    mode: 'window' as const,
    compacted: false,
    messages: [user('hi')],
  };
  return { service, store, command, access };
}

describe('SaveMemoryUseCase', () => {
  it('checks the caller may read the flow before anything is written', async () => {
    const { service, store, command, access } = setup(() =>
      Promise.resolve({ version: 1, replacedVersion: null }),
    );
    vi.mocked(access.assertAllowed).mockRejectedValueOnce(new Error('denied'));
    await expect(service.save(command)).rejects.toThrow('denied');
    expect(store.write).not.toHaveBeenCalled();
  });

  it('falls back to the database with its limit when object storage fails', async () => {
    const { service, store, command } = setup(() =>
      Promise.reject(new ObjectStorageError('put', 'memory/main/x/a.json', new Error('ECONNREFUSED'))),
    );
    const reply = await service.save(command);
    expect(reply).toMatchObject({
      status: 'saved',
      store: 'database',
      fellBack: true,
      version: 4,
      replacedVersion: 3,
      limitBytes: 100,
    });
    expect(reply.notice).toContain('ECONNREFUSED');
    expect(store.writeToDatabase).toHaveBeenCalledOnce();
  });

  it('refuses an oversized compaction memory in the fallback without writing', async () => {
    const { service, store, command } = setup(() =>
      Promise.reject(new ObjectStorageError('put', 'k', new Error('timeout'))),
    );
    const reply = await service.save({ ...command, mode: 'compaction', messages: [user('x'.repeat(200))] });
    expect(reply).toMatchObject({ status: 'failed', currentVersion: 3 });
    expect(store.writeToDatabase).not.toHaveBeenCalled();
  });

  it('does not fall back on other failures: they reach the caller', async () => {
    const { service, store, command } = setup(() => Promise.reject(new Error('deadlock')));
    await expect(service.save(command)).rejects.toThrow('deadlock');
    expect(store.writeToDatabase).not.toHaveBeenCalled();
  });
});
