import {
  MeshError,
  type RecordedCall,
  type RecordedOperation,
  type RecordingMode,
  type ReplayMismatch,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { CanonicalRequest } from './canonical-request.js';

export interface StoredRecording {
  readonly mode: RecordingMode;
  readonly mismatch: ReplayMismatch | null;
  readonly calls: RecordedCall[];
  readonly unused: number;
}

/** A recorded call not yet answered in a replay, as a mismatch is judged against it. */
export interface UnusedCall {
  readonly seq: number;
  readonly request: CanonicalRequest;
}

/** The recordings in Postgres (`llm_recording`, `llm_recorded_call`), always by workspace. */
@Injectable()
export class RecordingRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Appends an answered call to the recording `id` (created by its first call), numbered after
   * the calls before it and counted among the identical requests (same digest) before it. The
   * recording's row is locked meanwhile, so parallel calls of a run get distinct numbers.
   */
  async append(workspace: string, id: string, call: Omit<RecordedCall, 'occurrence'>): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO "llm_recording" ("workspace", "id", "mode") VALUES ($1, $2, 'record') ON CONFLICT DO NOTHING`,
        [workspace, id],
      );
      const mode = await this.lock(tx, workspace, id);
      if (mode !== 'record')
        throw new MeshError('CONFLICT', `recording ${id} is a replay: a run cannot record into it`);
      await tx.query(
        `INSERT INTO "llm_recorded_call" ("workspace", "recording_id", "seq", "operation", "digest", "occurrence", "request", "answer")
         SELECT $1, $2,
           (SELECT coalesce(max("seq") + 1, 0) FROM "llm_recorded_call" WHERE "workspace" = $1 AND "recording_id" = $2),
           $3, $4,
           (SELECT count(*) FROM "llm_recorded_call" WHERE "workspace" = $1 AND "recording_id" = $2 AND "digest" = $4),
           $5::json, $6::json`,
        [
          workspace,
          id,
          call.operation,
          call.digest,
          JSON.stringify(call.request),
          JSON.stringify(call.answer),
        ],
      );
    });
  }

  /** Stores the calls a replay with the id `id` answers from; an id already used is a CONFLICT. */
  async upload(workspace: string, id: string, calls: readonly RecordedCall[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      const created = await tx.query<unknown[]>(
        `INSERT INTO "llm_recording" ("workspace", "id", "mode") VALUES ($1, $2, 'replay') ON CONFLICT DO NOTHING RETURNING "id"`,
        [workspace, id],
      );
      if (created.length === 0)
        throw new MeshError('CONFLICT', `recording ${id} exists already: a replay takes a new id`);
      if (calls.length === 0) return;
      const rows = calls.map((call, seq) => ({ seq, ...call }));
      await tx.query(
        `INSERT INTO "llm_recorded_call" ("workspace", "recording_id", "seq", "operation", "digest", "occurrence", "request", "answer")
         SELECT $1, $2, r."seq", r."operation", r."digest", r."occurrence", r."request", r."answer"
         FROM json_to_recordset($3::json) AS r("seq" integer, "operation" text, "digest" text, "occurrence" integer, "request" json, "answer" json)`,
        [workspace, id, JSON.stringify(rows)],
      );
    });
  }

  /**
   * A replay's answer to the `occurrence`-th use of a request: the recorded call with its digest
   * not used yet (marked used), else the calls still unused, to say what was expected instead.
   * A first mismatch is kept on the recording (`mismatch`) by `judge`, under the same lock.
   */
  async take(
    workspace: string,
    id: string,
    operation: RecordedOperation,
    digest: string,
    judge: (unused: UnusedCall[]) => ReplayMismatch,
  ): Promise<{ answer: unknown } | { mismatch: ReplayMismatch }> {
    return this.db.transaction(async (tx) => {
      const mode = await this.lock(tx, workspace, id);
      if (mode !== 'replay')
        throw new MeshError(
          'NOT_FOUND',
          `no replay ${id} in workspace ${workspace}: upload the recording first (PUT ai/recordings/${id})`,
        );
      // TypeORM answers an UPDATE as [rows, affected].
      const [rows] = await tx.query<[Array<{ answer: unknown }>, number]>(
        `UPDATE "llm_recorded_call" SET "used" = true
         WHERE ("workspace", "recording_id", "seq") = (
           SELECT "workspace", "recording_id", "seq" FROM "llm_recorded_call"
           WHERE "workspace" = $1 AND "recording_id" = $2 AND "operation" = $3 AND "digest" = $4 AND NOT "used"
           ORDER BY "occurrence" LIMIT 1)
         RETURNING "answer"`,
        [workspace, id, operation, digest],
      );
      if (rows.length > 0) return { answer: rows[0].answer };
      const unused = await tx.query<UnusedCall[]>(
        `SELECT "seq", "request" FROM "llm_recorded_call"
         WHERE "workspace" = $1 AND "recording_id" = $2 AND "operation" = $3 AND NOT "used" ORDER BY "seq" LIMIT 1000`,
        [workspace, id, operation],
      );
      const mismatch = judge(unused);
      await tx.query(
        `UPDATE "llm_recording" SET "mismatch" = $3::jsonb WHERE "workspace" = $1 AND "id" = $2 AND "mismatch" IS NULL`,
        [workspace, id, JSON.stringify(mismatch)],
      );
      return { mismatch };
    });
  }

  /** The recording `id` of `workspace` with its calls in order; undefined when there is none. */
  async read(workspace: string, id: string): Promise<StoredRecording | undefined> {
    const [recording] = await this.db.query<Array<{ mode: RecordingMode; mismatch: ReplayMismatch | null }>>(
      `SELECT "mode", "mismatch" FROM "llm_recording" WHERE "workspace" = $1 AND "id" = $2`,
      [workspace, id],
    );
    if (!recording) return undefined;
    const rows = await this.db.query<Array<RecordedCall & { used: boolean }>>(
      `SELECT "operation", "digest", "occurrence", "request", "answer", "used" FROM "llm_recorded_call"
       WHERE "workspace" = $1 AND "recording_id" = $2 ORDER BY "seq"`,
      [workspace, id],
    );
    return {
      mode: recording.mode,
      mismatch: recording.mismatch,
      calls: rows.map(({ used: _used, ...call }) => call),
      unused: recording.mode === 'replay' ? rows.filter((row) => !row.used).length : 0,
    };
  }

  private async lock(tx: EntityManager, workspace: string, id: string): Promise<RecordingMode | undefined> {
    const [row] = await tx.query<Array<{ mode: RecordingMode }>>(
      `SELECT "mode" FROM "llm_recording" WHERE "workspace" = $1 AND "id" = $2 FOR UPDATE`,
      [workspace, id],
    );
    return row?.mode;
  }
}
