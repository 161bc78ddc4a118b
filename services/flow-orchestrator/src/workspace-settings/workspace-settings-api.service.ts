import {
  MeshError,
  orchestratorWorkspaceSettingsContract as contract,
  type RequestOf,
  type WorkspaceSettings,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { withDefaults, WorkspaceLimits } from '../engine/workspace-limits.js';
import { ActorCallerResolver } from '../http/actor-caller.resolver.js';
import { WorkspaceSettingsStore } from '../store/workspace-settings.store.js';

/**
 * A workspace's engine settings (`orchestrator.workspace_settings.*` and the HTTP routes): any
 * member reads them, a workspace admin (with an unscoped token) changes them. Workers read them
 * through `WorkspaceLimits`, within five seconds of a change.
 */
@Injectable()
export class WorkspaceSettingsApi {
  constructor(
    private readonly callers: ActorCallerResolver,
    private readonly store: WorkspaceSettingsStore,
    private readonly limits: WorkspaceLimits,
  ) {}

  async get(req: RequestOf<typeof contract.get>): Promise<WorkspaceSettings> {
    await this.callers.callerOf(req);
    return withDefaults(await this.store.read(req.workspace));
  }

  async update(req: RequestOf<typeof contract.update>): Promise<WorkspaceSettings> {
    const { identity } = await this.callers.callerOf(req);
    if (!identity.isAdmin || identity.scopes !== undefined)
      throw new MeshError(
        'PERMISSION_DENIED',
        `only an admin of workspace "${req.workspace}" (with an unscoped token) may change its settings`,
      );
    const stored = await this.store.update(req.workspace, req.settings, identity.username);
    this.limits.forget(req.workspace);
    return withDefaults(stored);
  }
}
