import { MeshError, type Conversation, type StartConversationRequestSchema } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { FlowAccess } from '../access/flow-access.service.js';
import { resolveMemoryKey } from '../memory/memory-key.util.js';
import { ConversationRepository } from './conversation.repository.js';

/** Opens the conversation of a run's memory id, or returns the one already open. */
@Injectable()
export class StartConversationUseCase {
  constructor(
    private readonly access: FlowAccess,
    private readonly conversations: ConversationRepository,
  ) {}

  async start(request: z.output<typeof StartConversationRequestSchema>): Promise<Conversation> {
    const { actor, workspace, flowPath } = request;
    await this.access.assertAllowed(actor, workspace, flowPath, 'read');
    const { memoryId } = resolveMemoryKey(workspace, flowPath, request.conversation);
    const conversation = await this.conversations.start(workspace, memoryId, flowPath, request.title);
    if (!conversation) {
      throw new MeshError('CONFLICT', `conversation ${memoryId} belongs to another flow`, {
        conversationId: memoryId,
      });
    }
    return conversation;
  }
}
