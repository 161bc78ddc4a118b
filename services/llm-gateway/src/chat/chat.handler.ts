import { gatewayContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ChatStreams } from './chat-streams.service.js';
import { StartChatService } from './start-chat.service.js';

/** Chat over NATS: start a streamed chat, cancel one. */
@Controller()
export class ChatHandler {
  constructor(
    private readonly starting: StartChatService,
    private readonly streams: ChatStreams,
  ) {}

  @HandleRequest(gatewayContract.startChat)
  start(@Payload() request: RequestOf<typeof gatewayContract.startChat>) {
    return this.starting.start(request);
  }

  @HandleRequest(gatewayContract.cancelChat)
  cancel(@Payload() request: RequestOf<typeof gatewayContract.cancelChat>) {
    return this.streams.cancel(request.streamId);
  }
}
