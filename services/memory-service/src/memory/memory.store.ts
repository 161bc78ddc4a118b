import {
  MAX_MEMORY_SIZE_BYTES,
  MeshError,
  type ChatMessage,
  type MemoryStoreKind,
} from '@flowmesh/contracts';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { ObjectStorage, ObjectStorageError } from '../storage/object-storage.port.js';
import { MemoryRepository } from './memory.repository.js';
import type { MemoryEntry, MemoryRef, MemoryRowSummary, VersionChange } from './memory.types.js';

/** `memory/{workspace}/{memory id}/{step}.json` */
export function memoryObjectKey(ref: MemoryRef): string {
  return `memory/${ref.workspace}/${ref.memoryId}/${ref.stepId}.json`;
}

/** Object metadata key holding the memory's version. */
const VERSION_METADATA = 'memory-version';

export interface LoadedMemory {
  /** The flow the memory belongs to. */
  readonly flowPath: string;
  readonly version: number;
  readonly store: MemoryStoreKind;
  readonly messages: ChatMessage[];
}

/**
 * Where a memory lives. Without object storage every memory is a row of `ai_agent_memory`; with
 * it, a memory is the object `memory/{workspace}/{memory id}/{step}.json` and its row keeps the
 * version (and the memory itself when a save fell back to the database).
 */
@Injectable()
export class MemoryStore {
  constructor(
    private readonly rows: MemoryRepository,
    @Optional() @Inject(ObjectStorage) private readonly objects?: ObjectStorage,
  ) {}

  /** The store new memories go to. */
  get kind(): MemoryStoreKind {
    return this.objects ? 's3' : 'database';
  }

  /** Bytes a memory may take in the configured store; object storage reports no limit. */
  get capacityBytes(): number | null {
    return this.objects ? null : MAX_MEMORY_SIZE_BYTES;
  }

  readonly databaseCapacityBytes = MAX_MEMORY_SIZE_BYTES;

  async read(ref: MemoryRef): Promise<LoadedMemory | undefined> {
    // With object storage the row and the object are fetched together: the row says which holds
    // the memory, and a load then costs one round trip, not two.
    const objectRead = this.objects?.get(memoryObjectKey(ref)).then(
      (object) => ({ object }),
      (error: unknown) => ({ error }),
    );
    const row = await this.rows.findContent(ref);
    if (!row) return undefined;
    if (row.messages)
      return { flowPath: row.flowPath, version: row.version, store: 'database', messages: row.messages };
    const read = await objectRead;
    const object = read && 'object' in read ? read.object : undefined;
    if (!object) {
      throw new MeshError(
        'UNAVAILABLE',
        `memory ${ref.memoryId} step ${ref.stepId} is in object storage, which ${read && 'error' in read ? 'cannot be reached' : 'has no such object'}`,
        { memoryId: ref.memoryId, stepId: ref.stepId },
      );
    }
    // A save still in flight may already have put its object: the object's own version is the truth.
    const version = Number(object.metadata[VERSION_METADATA] ?? row.version);
    return { flowPath: row.flowPath, version, store: 's3', messages: parseStoredHistory(object.body, ref) };
  }

  /** Writes to the configured store; an `ObjectStorageError` means object storage failed and nothing changed. */
  write(ref: MemoryRef, entry: MemoryEntry): Promise<VersionChange> {
    const objects = this.objects;
    if (!objects) return this.rows.writeInline(ref, entry);
    return this.rows.writeWithObject(ref, entry, (version) =>
      objects.put(memoryObjectKey(ref), entry.json, { [VERSION_METADATA]: String(version) }),
    );
  }

  writeToDatabase(ref: MemoryRef, entry: MemoryEntry): Promise<VersionChange> {
    return this.rows.writeInline(ref, entry);
  }

  currentVersion(ref: MemoryRef): Promise<number | null> {
    return this.rows.currentVersion(ref);
  }

  /**
   * Removes the objects of deleted rows. Best effort: with the row gone the object is never read
   * again, and a later save of the same memory overwrites it.
   */
  async removeObjects(
    workspace: string,
    deleted: readonly MemoryRowSummary[],
  ): Promise<ObjectStorageError | undefined> {
    const keys = deleted
      .filter((row) => row.store === 's3')
      .map((row) => memoryObjectKey({ workspace, memoryId: row.memoryId, stepId: row.stepId }));
    if (!this.objects || keys.length === 0) return undefined;
    try {
      await this.objects.delete(keys);
      return undefined;
    } catch (error) {
      if (error instanceof ObjectStorageError) return error;
      throw error;
    }
  }
}

/** Our own writes are the only source of these objects, so a shape check is enough; the caller validates replies. */
function parseStoredHistory(body: string, ref: MemoryRef): ChatMessage[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    value = undefined;
  }
  if (!Array.isArray(value)) {
    throw new MeshError(
      'INTERNAL',
      `the stored object of memory ${ref.memoryId} step ${ref.stepId} is not a memory`,
      {
        memoryId: ref.memoryId,
        stepId: ref.stepId,
      },
    );
  }
  return value as ChatMessage[];
}
