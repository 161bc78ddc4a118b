import type { ChatMessage, MemoryStoreKind } from '@flowmesh/contracts';

/** One memory: a memory id and a step, in a workspace. */
export interface MemoryRef {
  readonly workspace: string;
  readonly memoryId: string;
  readonly stepId: string;
}

/** A stored memory's row; `messages` is null when the memory is an object in S3. */
export interface MemoryRow {
  readonly memoryId: string;
  readonly stepId: string;
  readonly flowPath: string;
  readonly version: number;
  readonly store: MemoryStoreKind;
  readonly messages: ChatMessage[] | null;
  readonly messageCount: number;
  readonly sizeBytes: number;
  readonly updatedAt: Date;
}

export type MemoryRowSummary = Omit<MemoryRow, 'messages'>;

/** What a write records beside the memory itself. */
export interface MemoryEntry {
  readonly flowPath: string;
  readonly messageCount: number;
  /** The memory's JSON text and its size in bytes. */
  readonly json: string;
  readonly bytes: number;
}

/** The version a write created and the one it replaced (null when there was none). */
export interface VersionChange {
  readonly version: number;
  readonly replacedVersion: number | null;
}
