import { registryIdentityContract as contract, type Group } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { GroupsService } from './groups.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

@Controller()
export class GroupsHandler {
  constructor(
    private readonly access: AccessService,
    private readonly groups: GroupsService,
  ) {}

  @HandleRequest(contract.listGroups)
  async list(@Payload() req: Req<'listGroups'>): Promise<{ groups: Group[] }> {
    return { groups: await this.groups.list(await this.access.authenticate(req.actor.token, req.workspace)) };
  }

  @HandleRequest(contract.getGroup)
  async get(@Payload() req: Req<'getGroup'>): Promise<Group> {
    return this.groups.get(await this.access.authenticate(req.actor.token, req.workspace), req.name);
  }

  @HandleRequest(contract.createGroup)
  async create(@Payload() req: Req<'createGroup'>): Promise<Group> {
    return this.groups.create(
      await this.access.authenticate(req.actor.token, req.workspace),
      req.name,
      req.summary,
    );
  }

  @HandleRequest(contract.deleteGroup)
  async delete(@Payload() req: Req<'deleteGroup'>): Promise<{ done: true }> {
    return this.groups.delete(await this.access.authenticate(req.actor.token, req.workspace), req.name);
  }

  @HandleRequest(contract.addGroupMember)
  async addMember(@Payload() req: Req<'addGroupMember'>): Promise<Group> {
    return this.groups.addMember(
      await this.access.authenticate(req.actor.token, req.workspace),
      req.name,
      req.username,
    );
  }

  @HandleRequest(contract.removeGroupMember)
  async removeMember(@Payload() req: Req<'removeGroupMember'>): Promise<Group> {
    return this.groups.removeMember(
      await this.access.authenticate(req.actor.token, req.workspace),
      req.name,
      req.username,
    );
  }
}
