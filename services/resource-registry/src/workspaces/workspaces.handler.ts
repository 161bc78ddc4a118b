import { registryIdentityContract as contract, type RequestOf, type Workspace } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AuthenticateService } from '../auth/authenticate.service.js';
import { WorkspacesService } from './workspaces.service.js';

@Controller()
export class WorkspacesHandler {
  constructor(
    private readonly auth: AuthenticateService,
    private readonly workspaces: WorkspacesService,
  ) {}

  @HandleRequest(contract.listWorkspaces)
  async list(
    @Payload() req: RequestOf<typeof contract.listWorkspaces>,
  ): Promise<{ workspaces: Workspace[] }> {
    return { workspaces: await this.workspaces.list(await this.auth.authenticateAccount(req.actor.token)) };
  }

  @HandleRequest(contract.createWorkspace)
  async create(@Payload() req: RequestOf<typeof contract.createWorkspace>): Promise<Workspace> {
    return this.workspaces.create(await this.auth.authenticateAccount(req.actor.token), req);
  }
}
