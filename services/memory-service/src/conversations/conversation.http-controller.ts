import {
  DeleteConversationRequestSchema,
  ListConversationMessagesRequestSchema,
  ListConversationsRequestSchema,
  type Actor,
} from '@flowmesh/contracts';
import { Controller, Delete, Get, Param, Query } from '@nestjs/common';
import { BearerActor } from '../http/bearer-actor.decorator.js';
import { ListQuerySchema, parseHttpRequest } from '../http/http-request.util.js';
import { DeleteConversationUseCase } from './delete-conversation.use-case.js';
import { ListConversationMessagesUseCase } from './list-conversation-messages.use-case.js';
import { ListConversationsUseCase } from './list-conversations.use-case.js';

/** Admin HTTP API of chat conversations; every answer is limited to flows the bearer may read. */
@Controller('api/w/:workspace/conversations')
export class ConversationHttpController {
  constructor(
    private readonly listing: ListConversationsUseCase,
    private readonly listingMessages: ListConversationMessagesUseCase,
    private readonly deleting: DeleteConversationUseCase,
  ) {}

  @Get('list')
  list(@BearerActor() actor: Actor, @Param('workspace') workspace: string, @Query() query: unknown) {
    const { order: _order, ...paging } = parseHttpRequest(ListQuerySchema, query);
    return this.listing.list(
      parseHttpRequest(ListConversationsRequestSchema, { actor, workspace, ...paging }),
    );
  }

  @Get(':conversationId/messages')
  messages(
    @BearerActor() actor: Actor,
    @Param() params: { workspace: string; conversationId: string },
    @Query() query: unknown,
  ) {
    const { flowPath: _flowPath, ...paging } = parseHttpRequest(ListQuerySchema, query);
    return this.listingMessages.list(
      parseHttpRequest(ListConversationMessagesRequestSchema, { actor, ...params, ...paging }),
    );
  }

  @Delete('delete/:conversationId')
  delete(@BearerActor() actor: Actor, @Param() params: { workspace: string; conversationId: string }) {
    return this.deleting.delete(parseHttpRequest(DeleteConversationRequestSchema, { actor, ...params }));
  }
}
