import type { DeleteConversationRequestSchema } from '@flowmesh/contracts';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { z } from 'zod';
import { FlowAccess } from '../access/flow-access.service.js';
import { MemoryRepository } from '../memory/memory.repository.js';
import { MemoryStore } from '../memory/memory.store.js';
import { ConversationRepository } from './conversation.repository.js';
import { findPermittedConversation } from './find-permitted-conversation.util.js';

/**
 * Deletes a conversation with its transcript and its memories (the memory id is the
 * conversation's, every step's), in one transaction. Memories a step kept under its own key stay.
 */
@Injectable()
export class DeleteConversationUseCase {
  private readonly log = new Logger('DeleteConversation');

  constructor(
    private readonly access: FlowAccess,
    private readonly conversations: ConversationRepository,
    private readonly memories: MemoryRepository,
    private readonly store: MemoryStore,
    private readonly dataSource: DataSource,
  ) {}

  async delete(request: z.output<typeof DeleteConversationRequestSchema>) {
    await findPermittedConversation(this.access, this.conversations, request, 'write');
    const { workspace, conversationId } = request;
    const { messagesDeleted, memories } = await this.dataSource.transaction(async (manager) => ({
      memories: await this.memories.delete(workspace, conversationId, undefined, manager),
      messagesDeleted: await this.conversations.delete(manager, workspace, conversationId),
    }));
    const failure = await this.store.removeObjects(workspace, memories);
    if (failure)
      this.log.warn(`conversation ${conversationId}: memory objects left behind: ${failure.message}`);
    return { conversationId, messagesDeleted, memoriesDeleted: memories.length };
  }
}
