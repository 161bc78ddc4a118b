import { gatewayContract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { ChatStreams } from './chat-streams.service.js';
import { StartChatService } from './start-chat.service.js';

type Request<K extends keyof typeof gatewayContract> = z.output<(typeof gatewayContract)[K]['request']>;

/** Chat over NATS: start a streamed chat, cancel one. */
@Controller()
export class ChatHandler {
  constructor(
    private readonly starting: StartChatService,
    private readonly streams: ChatStreams,
  ) {}

  @HandleRequest(gatewayContract.startChat)
  start(@Payload() request: Request<'startChat'>) {
    return this.starting.start(request);
  }

  @HandleRequest(gatewayContract.cancelChat)
  cancel(@Payload() request: Request<'cancelChat'>) {
    return this.streams.cancel(request.streamId);
  }
}
