import {
  DeleteConversationRequestSchema,
  ListConversationMessagesRequestSchema,
  ListConversationsRequestSchema,
  type Actor,
} from '@flowmesh/contracts';
import { Controller, Delete, Get, Param, Query } from '@nestjs/common';
import { BearerActor } from '../http/bearer-actor.decorator.js';
import { ListQuerySchema, parseHttpRequest } from '../http/http-request.util.js';
import { DeleteConversationService } from './delete-conversation.service.js';
import { ListConversationMessagesService } from './list-conversation-messages.service.js';
import { ListConversationsService } from './list-conversations.service.js';

/** Admin HTTP API of chat conversations; every answer is limited to flows the bearer may read. */
@Controller('api/w/:workspace/conversations')
export class ConversationHttpController {
  constructor(
    private readonly listing: ListConversationsService,
    private readonly listingMessages: ListConversationMessagesService,
    private readonly deleting: DeleteConversationService,
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
