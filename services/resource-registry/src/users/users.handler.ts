import { registryIdentityContract as contract, type CallerIdentity, type User } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { UsersService } from './users.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

@Controller()
export class UsersHandler {
  constructor(
    private readonly access: AccessService,
    private readonly users: UsersService,
  ) {}

  @HandleRequest(contract.whoami)
  async whoami(@Payload() req: Req<'whoami'>): Promise<CallerIdentity> {
    return this.users.whoami(await this.access.authenticate(req.actor.token, req.workspace));
  }

  @HandleRequest(contract.listUsers)
  async list(@Payload() req: Req<'listUsers'>): Promise<{ users: User[] }> {
    return { users: await this.users.list(await this.access.authenticate(req.actor.token, req.workspace)) };
  }

  @HandleRequest(contract.getUser)
  async get(@Payload() req: Req<'getUser'>): Promise<User> {
    return this.users.get(await this.access.authenticate(req.actor.token, req.workspace), req.username);
  }

  @HandleRequest(contract.addUser)
  async add(@Payload() req: Req<'addUser'>): Promise<User> {
    return this.users.add(await this.access.authenticate(req.actor.token, req.workspace), req);
  }

  @HandleRequest(contract.updateUser)
  async update(@Payload() req: Req<'updateUser'>): Promise<User> {
    return this.users.setAdmin(
      await this.access.authenticate(req.actor.token, req.workspace),
      req.username,
      req.isAdmin,
    );
  }

  @HandleRequest(contract.removeUser)
  async remove(@Payload() req: Req<'removeUser'>): Promise<{ done: true }> {
    return this.users.remove(await this.access.authenticate(req.actor.token, req.workspace), req.username);
  }
}
