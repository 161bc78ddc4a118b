import { DEPLOY_EVENTS, type DeletedOwner, type DeployedOwner } from '@flowmesh/contracts';
import { HandleEvent } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeploysService } from './deploys.service.js';

/** The registry's deploys (`evt.deploy.*`), one durable consumer each. */
@Controller()
export class DeploysListener {
  constructor(private readonly deploys: DeploysService) {}

  @HandleEvent(DEPLOY_EVENTS.saved, { durable: 'dependency-locker-deploy-saved' })
  saved(@Payload() event: DeployedOwner): Promise<void> {
    return this.deploys.saved(event);
  }

  @HandleEvent(DEPLOY_EVENTS.deleted, { durable: 'dependency-locker-deploy-deleted' })
  deleted(@Payload() event: DeletedOwner): Promise<void> {
    return this.deploys.deleted(event);
  }
}
