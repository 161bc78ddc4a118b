import type { WriteLocksReply, WriteLocksRequest } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ItemEventWriter } from '../item-events/item-event.writer.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { codeSha256, writeModuleLocks } from './lockable-units.js';

/** Who the item events of a lock write name. */
const LOCKER = 'dependency-locker';

/**
 * Writes locks dependency-locker made back into the items, in place (a lock is not a new version:
 * the code did not change), and only onto what was locked: a script's lock onto its version when
 * that version is still current, a flow's onto its current version, any step's or tool's only
 * while its code hashes to what was locked. Anything else is `superseded`: a deploy landed
 * meanwhile, and its own lock follows. An item event lets caches drop the item.
 */
@Injectable()
export class WriteLocksUseCase {
  constructor(
    private readonly transactions: ItemTransactions,
    private readonly events: ItemEventWriter,
  ) {}

  async write(request: WriteLocksRequest): Promise<WriteLocksReply> {
    const wanted = new Map(
      request.locks.map((l) => [l.node_id, { codeSha256: l.code_sha256, lock: l.lock }]),
    );
    const written = await this.transactions.run(undefined, (manager) => {
      switch (request.owner_kind) {
        case 'script':
          return this.writeScript(manager, request, wanted.get(''));
        case 'flow':
          return this.writeFlow(manager, request, wanted);
        case 'agent':
          return this.writeAgent(manager, request, wanted);
      }
    });
    return {
      written: [...written],
      superseded: request.locks.map((l) => l.node_id).filter((id) => !written.has(id)),
    };
  }

  private async writeScript(
    manager: EntityManager,
    request: WriteLocksRequest,
    lock: { codeSha256: string; lock: string } | undefined,
  ): Promise<Set<string>> {
    const [row] = await manager.query<Array<{ content: string }>>(
      `SELECT v.content FROM script s JOIN script_version v ON v.workspace_id = s.workspace_id AND v.hash = s.current_hash
       WHERE s.workspace_id = $1 AND s.path = $2 AND s.current_hash = $3 FOR UPDATE OF s`,
      [request.workspace, request.path, request.version],
    );
    if (!lock || !row || codeSha256(row.content) !== lock.codeSha256) return new Set();
    await manager.query(`UPDATE script_version SET lock = $3 WHERE workspace_id = $1 AND hash = $2`, [
      request.workspace,
      request.version,
      lock.lock,
    ]);
    await this.changed(manager, request, 'script', { hash: request.version });
    return new Set(['']);
  }

  private async writeFlow(
    manager: EntityManager,
    request: WriteLocksRequest,
    wanted: ReadonlyMap<string, { codeSha256: string; lock: string }>,
  ): Promise<Set<string>> {
    const [row] = await manager.query<Array<{ value: Record<string, unknown> }>>(
      `SELECT value FROM flow WHERE workspace_id = $1 AND path = $2 AND version_id = $3 FOR UPDATE`,
      [request.workspace, request.path, request.version],
    );
    if (!row) return new Set();
    const written = writeModuleLocks(row.value, wanted);
    if (written.size === 0) return written;
    const value = JSON.stringify(row.value);
    await manager.query(`UPDATE flow SET value = $3::jsonb WHERE workspace_id = $1 AND path = $2`, [
      request.workspace,
      request.path,
      value,
    ]);
    await manager.query(`UPDATE flow_version SET value = $2::jsonb WHERE id = $1`, [request.version, value]);
    await this.changed(manager, request, 'flow');
    return written;
  }

  private async writeAgent(
    manager: EntityManager,
    request: WriteLocksRequest,
    wanted: ReadonlyMap<string, { codeSha256: string; lock: string }>,
  ): Promise<Set<string>> {
    const [row] = await manager.query<Array<{ value: { tools?: unknown } }>>(
      `SELECT value FROM resource WHERE workspace_id = $1 AND path = $2 AND resource_type = 'ai_agent' FOR UPDATE`,
      [request.workspace, request.path],
    );
    if (!row || typeof row.value !== 'object' || row.value === null) return new Set();
    const written = writeModuleLocks({ modules: row.value.tools }, wanted);
    if (written.size === 0) return written;
    await manager.query(`UPDATE resource SET value = $3::jsonb WHERE workspace_id = $1 AND path = $2`, [
      request.workspace,
      request.path,
      JSON.stringify(row.value),
    ]);
    await this.changed(manager, request, 'resource', { resource_type: 'ai_agent' });
    return written;
  }

  private changed(
    manager: EntityManager,
    request: WriteLocksRequest,
    kind: 'script' | 'flow' | 'resource',
    extra: { hash?: string; resource_type?: string } = {},
  ): Promise<void> {
    return this.events.record(manager, {
      kind,
      change: 'updated',
      workspace: request.workspace,
      path: request.path,
      ...extra,
      by: LOCKER,
    });
  }
}
