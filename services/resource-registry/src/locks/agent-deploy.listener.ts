import { isDeepStrictEqual } from 'node:util';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  ResourceWriteListeners,
  type ResourceWrite,
  type ResourceWriteListener,
} from '../resources/resource-write.listeners.js';
import { DeployEventWriter } from './deploy-event.writer.js';
import { agentParts } from './lockable-units.js';

/**
 * Closes the gap Windmill leaves (a linked agent's tools are outside every lock): each write of
 * an `ai_agent` resource whose tools changed is a deploy, so its `rawscript` tools are locked and
 * its tools by path mapped, as a flow's steps are.
 */
@Injectable()
export class AgentDeployListener implements ResourceWriteListener {
  constructor(
    listeners: ResourceWriteListeners,
    private readonly deploys: DeployEventWriter,
  ) {
    listeners.register(this);
  }

  async onResourceWritten(manager: EntityManager, write: ResourceWrite): Promise<void> {
    const row = write.after ?? write.before;
    if (row?.resourceType !== 'ai_agent') return;
    if (!write.after) {
      await this.deploys.deleted(manager, {
        workspace: row.workspaceId,
        ownerKind: 'agent',
        path: row.path,
        by: write.identity.username,
      });
      return;
    }
    const renamed = write.before !== undefined && write.before.path !== write.after.path;
    if (!renamed && write.before && isDeepStrictEqual(tools(write.before.value), tools(write.after.value)))
      return;
    await this.deploys.saved(manager, {
      workspace: row.workspaceId,
      ownerKind: 'agent',
      path: write.after.path,
      // An agent's locks are checked against each tool's code, not a version.
      version: '-',
      ...(renamed ? { previousPath: write.before.path } : {}),
      parts: agentParts(write.after.value),
      by: write.identity.username,
    });
  }
}

function tools(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? (value as { tools?: unknown }).tools : undefined;
}
