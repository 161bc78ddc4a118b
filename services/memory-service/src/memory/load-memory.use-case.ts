import { lastMessagesWindow, type LoadMemoryReply, type LoadMemoryRequestSchema } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { FlowAccess } from '../access/flow-access.service.js';
import { resolveMemoryKey } from './memory-key.util.js';
import { MemoryStore } from './memory.store.js';
import { memoryOfAnotherFlow } from './memory.errors.js';

/** Loads a memory for a run: the last `window` messages, or all of it (compaction). */
@Injectable()
export class LoadMemoryUseCase {
  constructor(
    private readonly access: FlowAccess,
    private readonly store: MemoryStore,
  ) {}

  async load(request: z.output<typeof LoadMemoryRequestSchema>): Promise<LoadMemoryReply> {
    await this.access.assertAllowed(request.actor, request.workspace, request.flowPath, 'read');
    const { memoryId } = resolveMemoryKey(request.workspace, request.flowPath, request.memoryKey);
    const loaded = await this.store.read({ workspace: request.workspace, memoryId, stepId: request.stepId });
    // A uuid key names the same memory in every flow: it stays with the flow that saved it.
    if (loaded && loaded.flowPath !== request.flowPath) throw memoryOfAnotherFlow(memoryId, request.stepId);
    const messages = loaded?.messages ?? [];
    return {
      memoryId,
      stepId: request.stepId,
      version: loaded?.version ?? null,
      messages: request.window === undefined ? messages : lastMessagesWindow(messages, request.window),
      totalMessages: messages.length,
      capacityBytes: this.store.capacityBytes,
      store: loaded?.store ?? null,
    };
  }
}
