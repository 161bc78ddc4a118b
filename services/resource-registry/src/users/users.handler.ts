import {
  registryIdentityContract as contract,
  type CallerIdentity,
  type RequestOf,
  type User,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { UsersService } from './users.service.js';

@Controller()
export class UsersHandler {
  constructor(private readonly users: UsersService) {}

  @HandleRequest(contract.whoami)
  whoami(@MeshCaller() identity: CallerIdentity): CallerIdentity {
    return this.users.whoami(identity);
  }

  @HandleRequest(contract.listUsers)
  async list(@MeshCaller() identity: CallerIdentity): Promise<{ users: User[] }> {
    return { users: await this.users.list(identity) };
  }

  @HandleRequest(contract.getUser)
  async get(
    @Payload() req: RequestOf<typeof contract.getUser>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<User> {
    return this.users.get(identity, req.username);
  }

  @HandleRequest(contract.addUser)
  async add(
    @Payload() req: RequestOf<typeof contract.addUser>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<User> {
    return this.users.add(identity, req);
  }

  @HandleRequest(contract.updateUser)
  async update(
    @Payload() req: RequestOf<typeof contract.updateUser>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<User> {
    return this.users.setAdmin(identity, req.username, req.isAdmin);
  }

  @HandleRequest(contract.removeUser)
  async remove(
    @Payload() req: RequestOf<typeof contract.removeUser>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ done: true }> {
    return this.users.remove(identity, req.username);
  }
}
