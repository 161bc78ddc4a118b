import { memoryContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AppendConversationMessageService } from './append-conversation-message.service.js';
import { DeleteConversationService } from './delete-conversation.service.js';
import { ListConversationMessagesService } from './list-conversation-messages.service.js';
import { ListConversationsService } from './list-conversations.service.js';
import { StartConversationService } from './start-conversation.service.js';

/** Chat conversations over NATS. */
@Controller()
export class ConversationHandler {
  constructor(
    private readonly starting: StartConversationService,
    private readonly appending: AppendConversationMessageService,
    private readonly listing: ListConversationsService,
    private readonly listingMessages: ListConversationMessagesService,
    private readonly deleting: DeleteConversationService,
  ) {}

  @HandleRequest(memoryContract.startConversation)
  start(@Payload() request: RequestOf<typeof memoryContract.startConversation>) {
    return this.starting.start(request);
  }

  @HandleRequest(memoryContract.appendConversationMessage)
  append(@Payload() request: RequestOf<typeof memoryContract.appendConversationMessage>) {
    return this.appending.append(request);
  }

  @HandleRequest(memoryContract.listConversations)
  list(@Payload() request: RequestOf<typeof memoryContract.listConversations>) {
    return this.listing.list(request);
  }

  @HandleRequest(memoryContract.listConversationMessages)
  messages(@Payload() request: RequestOf<typeof memoryContract.listConversationMessages>) {
    return this.listingMessages.list(request);
  }

  @HandleRequest(memoryContract.deleteConversation)
  delete(@Payload() request: RequestOf<typeof memoryContract.deleteConversation>) {
    return this.deleting.delete(request);
  }
}
