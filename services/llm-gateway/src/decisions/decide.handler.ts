import { gatewayContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { canonicalDecideRequest } from '../recordings/canonical-request.js';
import { RecordingsService } from '../recordings/recordings.service.js';
import { DecideService } from './decide.service.js';

/** Decision models over NATS (recorded or replayed when the request carries a recording). */
@Controller()
export class DecideHandler {
  constructor(
    private readonly decisions: DecideService,
    private readonly recordings: RecordingsService,
  ) {}

  @HandleRequest(gatewayContract.decide)
  async decide(@Payload() request: RequestOf<typeof gatewayContract.decide>) {
    const { recording, ...decision } = request;
    if (!recording) return this.decisions.decide(decision);
    // A replay calls no provider: it needs no credentials, only a caller of the workspace.
    if (recording.mode === 'replay') await this.recordings.checkCaller(request.actor, request.workspace);
    return this.recordings.reply(
      request.workspace,
      recording,
      'decide',
      canonicalDecideRequest(decision),
      () => this.decisions.decide(decision),
    );
  }
}
