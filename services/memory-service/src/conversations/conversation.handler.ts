import { memoryContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AppendConversationMessageUseCase } from './append-conversation-message.use-case.js';
import { DeleteConversationUseCase } from './delete-conversation.use-case.js';
import { ListConversationMessagesUseCase } from './list-conversation-messages.use-case.js';
import { ListConversationsUseCase } from './list-conversations.use-case.js';
import { StartConversationUseCase } from './start-conversation.use-case.js';

/** Chat conversations over NATS. */
@Controller()
export class ConversationHandler {
  constructor(
    private readonly starting: StartConversationUseCase,
    private readonly appending: AppendConversationMessageUseCase,
    private readonly listing: ListConversationsUseCase,
    private readonly listingMessages: ListConversationMessagesUseCase,
    private readonly deleting: DeleteConversationUseCase,
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
