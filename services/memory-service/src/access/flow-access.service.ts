import { MeshError, type Actor } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { RegistryAccess } from './registry-access.port.js';

export type FlowAction = 'read' | 'write';

/** A repository of rows that belong to flows (memories, conversations). */
export interface FlowRowsSource {
  distinctFlowPaths(workspace: string, flowPath?: string): Promise<string[]>;
}

const REASON: Record<FlowAction, string> = {
  read: 'so it may not read its memories or conversations',
  write: 'so it may not delete its memories or conversations',
};

/**
 * Memories and conversations belong to the flow a run started from: whoever may read the flow
 * may read (and, as a run of it, write) them; deleting them takes write access to the flow. Those
 * of previews without a path (the empty path) are the workspace's: any member may.
 * The registry decides, with the caller's own token, under the `memory` scope domain.
 */
@Injectable()
export class FlowAccess {
  constructor(private readonly registry: RegistryAccess) {}

  async assertAllowed(actor: Actor, workspace: string, flowPath: string, action: FlowAction): Promise<void> {
    if (await this.allowed(actor, workspace, flowPath, action)) return;
    throw new MeshError(
      'PERMISSION_DENIED',
      `the caller may not ${action} flow ${flowPath}, ${REASON[action]}`,
      {
        flowPath,
        action,
      },
    );
  }

  /** The paths among `flowPaths` the actor may act on, asked all at once. */
  async allowedPaths(
    actor: Actor,
    workspace: string,
    flowPaths: readonly string[],
    action: FlowAction,
  ): Promise<string[]> {
    const answers = await Promise.all(flowPaths.map((path) => this.allowed(actor, workspace, path, action)));
    return flowPaths.filter((_, i) => answers[i]);
  }

  /**
   * The flows the actor may read among those `rows` holds in the workspace (only `flowPath`, when
   * given). Permissions are per flow, so they are asked once per flow, then a page is read among those.
   */
  async readableFlowPaths(
    actor: Actor,
    workspace: string,
    rows: FlowRowsSource,
    flowPath?: string,
  ): Promise<string[]> {
    await this.authenticate(actor, workspace);
    const flowPaths = await rows.distinctFlowPaths(workspace, flowPath);
    return this.allowedPaths(actor, workspace, flowPaths, 'read');
  }

  /** Fails unless the token is valid in the workspace; for calls that may not reach a path check. */
  async authenticate(actor: Actor, workspace: string): Promise<void> {
    await this.registry.authenticate({ token: actor.token, workspace });
  }

  private async allowed(actor: Actor, workspace: string, path: string, action: FlowAction): Promise<boolean> {
    // A preview run that names no path keeps its memories under the empty path: no flow holds
    // rights over them, so any member of the workspace may (as in Windmill).
    if (path === '') {
      await this.authenticate(actor, workspace);
      return true;
    }
    const { allowed } = await this.registry.checkAccess({ actor, workspace, path, action, domain: 'memory' });
    return allowed;
  }
}
