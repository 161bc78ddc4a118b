import { orchestratorWorkspaceSettingsContract as contract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { WorkspaceSettingsApi } from './workspace-settings-api.service.js';

/** `orchestrator.workspace_settings.*` over NATS, as the `actor`. */
@Controller()
export class WorkspaceSettingsHandler {
  constructor(private readonly api: WorkspaceSettingsApi) {}

  @HandleRequest(contract.get)
  get(@Payload() req: RequestOf<typeof contract.get>) {
    return this.api.get(req);
  }

  @HandleRequest(contract.update)
  update(@Payload() req: RequestOf<typeof contract.update>) {
    return this.api.update(req);
  }
}
