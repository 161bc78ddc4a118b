import { registryDeployContract as contract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { DeployService } from './deploy.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;
type Res<K extends keyof typeof contract> = z.input<(typeof contract)[K]['reply']>;

@Controller()
export class DeployHandler {
  constructor(
    private readonly access: AccessService,
    private readonly deploy: DeployService,
  ) {}

  @HandleRequest(contract.plan)
  async plan(@Payload() req: Req<'plan'>): Promise<Res<'plan'>> {
    return this.deploy.plan(
      await this.access.authenticate(req.actor.token, req.workspace),
      req.actor.token,
      req,
    );
  }

  @HandleRequest(contract.apply)
  async apply(@Payload() req: Req<'apply'>): Promise<Res<'apply'>> {
    return this.deploy.apply(
      await this.access.authenticate(req.actor.token, req.workspace),
      req.actor.token,
      req,
    );
  }
}
