import { MeshError, type GetMemoryRequestSchema, type StoredMemory } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { FlowAccess } from '../access/flow-access.service.js';
import { toMemorySummary } from './memory-summary.mapper.js';
import { MemoryRepository } from './memory.repository.js';
import { MemoryStore } from './memory.store.js';

/** One stored memory by resolved id and step, for the admin API. */
@Injectable()
export class GetMemoryUseCase {
  constructor(
    private readonly access: FlowAccess,
    private readonly rows: MemoryRepository,
    private readonly store: MemoryStore,
  ) {}

  async get(request: z.output<typeof GetMemoryRequestSchema>): Promise<StoredMemory> {
    const { actor, workspace, memoryId, stepId } = request;
    const ref = { workspace, memoryId, stepId };
    const row = await this.rows.find(ref);
    if (!row) {
      await this.access.authenticate(actor, workspace);
      throw new MeshError('NOT_FOUND', `no memory ${memoryId} step ${stepId} in workspace ${workspace}`, {
        memoryId,
        stepId,
      });
    }
    await this.access.assertAllowed(actor, workspace, row.flowPath, 'read');
    const loaded = row.messages
      ? { version: row.version, messages: row.messages }
      : await this.store.read(ref);
    return {
      ...toMemorySummary(row),
      version: loaded?.version ?? row.version,
      messages: loaded?.messages ?? [],
    };
  }
}
