import type { ConversationMessage, ListConversationMessagesRequestSchema } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { FlowAccess } from '../access/flow-access.service.js';
import { ConversationRepository } from './conversation.repository.js';
import { findPermittedConversation } from './find-permitted-conversation.util.js';

/** A page of a conversation's transcript. */
@Injectable()
export class ListConversationMessagesUseCase {
  constructor(
    private readonly access: FlowAccess,
    private readonly conversations: ConversationRepository,
  ) {}

  async list(
    request: z.output<typeof ListConversationMessagesRequestSchema>,
  ): Promise<{ messages: ConversationMessage[]; page: number; perPage: number }> {
    await findPermittedConversation(this.access, this.conversations, request, 'read');
    const { workspace, conversationId, order, page, perPage } = request;
    return {
      messages: await this.conversations.messages(workspace, conversationId, order, page, perPage),
      page,
      perPage,
    };
  }
}
