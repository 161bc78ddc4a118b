import type { MemoryStoreKind } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { distinctFlowPaths, pageOfFlowRows } from '../storage/flow-rows.query.js';
import { memoryOfAnotherFlow } from './memory.errors.js';
import type { MemoryEntry, MemoryRef, MemoryRow, MemoryRowSummary, VersionChange } from './memory.types.js';

interface RawRow {
  memory_id: string;
  step_id: string;
  flow_path: string;
  version: number;
  store: MemoryStoreKind;
  messages?: MemoryRow['messages'];
  message_count: number;
  size_bytes: number;
  updated_at: Date;
}

const SUMMARY_COLUMNS = `memory_id, step_id, flow_path, version, store, message_count, size_bytes, updated_at`;

// One statement replaces the row: the row lock orders concurrent saves, and each learns the
// version it replaced. A row of another flow (a uuid key reused elsewhere) is left alone.
const UPSERT = `
  INSERT INTO ai_agent_memory AS m
    (workspace_id, memory_id, step_id, flow_path, version, store, messages, message_count, size_bytes)
  VALUES ($1, $2, $3, $4, 1, $5, $6::jsonb, $7, $8)
  ON CONFLICT (workspace_id, memory_id, step_id) DO UPDATE
    SET version = m.version + 1, store = EXCLUDED.store, messages = EXCLUDED.messages,
        message_count = EXCLUDED.message_count, size_bytes = EXCLUDED.size_bytes, updated_at = now()
    WHERE m.flow_path = EXCLUDED.flow_path
  RETURNING version`;

/** `ai_agent_memory` rows. */
@Injectable()
export class MemoryRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(ref: MemoryRef): Promise<MemoryRow | undefined> {
    const rows: RawRow[] = await this.dataSource.query(
      `SELECT ${SUMMARY_COLUMNS}, messages FROM ai_agent_memory WHERE workspace_id = $1 AND memory_id = $2 AND step_id = $3`,
      [ref.workspace, ref.memoryId, ref.stepId],
    );
    return rows[0] && toRow(rows[0]);
  }

  /** What a load needs, and nothing else: the hot path of every agent step with memory. */
  async findContent(
    ref: MemoryRef,
  ): Promise<Pick<MemoryRow, 'flowPath' | 'version' | 'messages'> | undefined> {
    const rows: Array<Pick<RawRow, 'flow_path' | 'version' | 'messages'>> = await this.dataSource.query(
      `SELECT flow_path, version, messages FROM ai_agent_memory WHERE workspace_id = $1 AND memory_id = $2 AND step_id = $3`,
      [ref.workspace, ref.memoryId, ref.stepId],
    );
    const row = rows[0];
    return row && { flowPath: row.flow_path, version: row.version, messages: row.messages ?? null };
  }

  async currentVersion(ref: MemoryRef): Promise<number | null> {
    const rows: Array<{ version: number }> = await this.dataSource.query(
      `SELECT version FROM ai_agent_memory WHERE workspace_id = $1 AND memory_id = $2 AND step_id = $3`,
      [ref.workspace, ref.memoryId, ref.stepId],
    );
    return rows[0]?.version ?? null;
  }

  /** Replaces the memory with one held in the row. */
  writeInline(ref: MemoryRef, entry: MemoryEntry): Promise<VersionChange> {
    return this.upsert(this.dataSource.manager, ref, entry, 'database', entry.json);
  }

  /**
   * Replaces the row of a memory kept as an object, and runs `putObject` with the new version
   * while the row stays locked: concurrent saves of the memory write their objects one after
   * the other, in version order. When `putObject` fails nothing changes.
   */
  writeWithObject(
    ref: MemoryRef,
    entry: MemoryEntry,
    putObject: (version: number) => Promise<void>,
  ): Promise<VersionChange> {
    return this.dataSource.transaction(async (manager) => {
      const change = await this.upsert(manager, ref, entry, 's3', null);
      await putObject(change.version);
      return change;
    });
  }

  distinctFlowPaths(workspace: string, flowPath?: string): Promise<string[]> {
    return distinctFlowPaths(this.dataSource, 'ai_agent_memory', workspace, flowPath);
  }

  async list(
    workspace: string,
    flowPaths: readonly string[],
    page: number,
    perPage: number,
  ): Promise<MemoryRowSummary[]> {
    const rows = await pageOfFlowRows<RawRow>(
      this.dataSource,
      `SELECT ${SUMMARY_COLUMNS} FROM ai_agent_memory
        WHERE workspace_id = $1 AND flow_path = ANY($2::text[])
        ORDER BY updated_at DESC, memory_id, step_id`,
      workspace,
      flowPaths,
      page,
      perPage,
    );
    return rows.map(toRow);
  }

  /** Every step's row of a memory id. */
  async findSteps(workspace: string, memoryId: string): Promise<MemoryRowSummary[]> {
    const rows: RawRow[] = await this.dataSource.query(
      `SELECT ${SUMMARY_COLUMNS} FROM ai_agent_memory WHERE workspace_id = $1 AND memory_id = $2 ORDER BY step_id`,
      [workspace, memoryId],
    );
    return rows.map(toRow);
  }

  /** Deletes a memory's rows (one step's, or all) and returns what was deleted. */
  async delete(
    workspace: string,
    memoryId: string,
    stepId?: string,
    manager?: EntityManager,
  ): Promise<MemoryRowSummary[]> {
    const result: [RawRow[], number] = await (manager ?? this.dataSource.manager).query(
      `DELETE FROM ai_agent_memory WHERE workspace_id = $1 AND memory_id = $2 AND ($3::text IS NULL OR step_id = $3)
        RETURNING ${SUMMARY_COLUMNS}`,
      [workspace, memoryId, stepId ?? null],
    );
    return result[0].map(toRow);
  }

  private async upsert(
    manager: EntityManager,
    ref: MemoryRef,
    entry: MemoryEntry,
    store: MemoryStoreKind,
    messagesJson: string | null,
  ): Promise<VersionChange> {
    const rows: Array<{ version: number }> = await manager.query(UPSERT, [
      ref.workspace,
      ref.memoryId,
      ref.stepId,
      entry.flowPath,
      store,
      messagesJson,
      entry.messageCount,
      entry.bytes,
    ]);
    const version = rows[0]?.version;
    if (version === undefined) throw memoryOfAnotherFlow(ref.memoryId, ref.stepId);
    return { version, replacedVersion: version > 1 ? version - 1 : null };
  }
}

function toRow(raw: RawRow): MemoryRow {
  return {
    memoryId: raw.memory_id,
    stepId: raw.step_id,
    flowPath: raw.flow_path,
    version: raw.version,
    store: raw.store,
    messages: raw.messages ?? null,
    messageCount: raw.message_count,
    sizeBytes: raw.size_bytes,
    updatedAt: raw.updated_at,
  };
}
