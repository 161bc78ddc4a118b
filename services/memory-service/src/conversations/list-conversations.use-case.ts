import type { Conversation, ListConversationsRequestSchema } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { FlowAccess } from '../access/flow-access.service.js';
import { ConversationRepository } from './conversation.repository.js';

/** Conversations of the flows the caller may read, most recently active first. */
@Injectable()
export class ListConversationsUseCase {
  constructor(
    private readonly access: FlowAccess,
    private readonly conversations: ConversationRepository,
  ) {}

  async list(
    request: z.output<typeof ListConversationsRequestSchema>,
  ): Promise<{ conversations: Conversation[]; page: number; perPage: number }> {
    const { actor, workspace, page, perPage } = request;
    const readable = await this.access.readableFlowPaths(
      actor,
      workspace,
      this.conversations,
      request.flowPath,
    );
    return {
      conversations: await this.conversations.list(workspace, readable, page, perPage),
      page,
      perPage,
    };
  }
}
