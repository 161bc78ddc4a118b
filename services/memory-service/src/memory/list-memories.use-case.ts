import type { ListMemoriesRequestSchema, MemorySummary } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { FlowAccess } from '../access/flow-access.service.js';
import { toMemorySummary } from './memory-summary.mapper.js';
import { MemoryRepository } from './memory.repository.js';

/** The memories of a workspace whose flows the caller may read, most recently saved first. */
@Injectable()
export class ListMemoriesUseCase {
  constructor(
    private readonly access: FlowAccess,
    private readonly rows: MemoryRepository,
  ) {}

  async list(
    request: z.output<typeof ListMemoriesRequestSchema>,
  ): Promise<{ memories: MemorySummary[]; page: number; perPage: number }> {
    const { actor, workspace, page, perPage } = request;
    const readable = await this.access.readableFlowPaths(actor, workspace, this.rows, request.flowPath);
    const rows = await this.rows.list(workspace, readable, page, perPage);
    return { memories: rows.map(toMemorySummary), page, perPage };
  }
}
