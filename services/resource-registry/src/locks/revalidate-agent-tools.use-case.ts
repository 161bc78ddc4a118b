import type { RevalidateAgentToolsReply, RevalidateAgentToolsRequest } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ItemEventWriter } from '../item-events/item-event.writer.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { ResourceVersionRepository } from '../versions/resource-version.repository.js';
import { checkScriptTools } from './agent-tool-inputs.js';

/** Who the versions and item events of a revalidation name. */
const LOCKER = 'dependency-locker';

/**
 * A script an agent runs as a tool by path was redeployed (dependency-locker asks): its tools are
 * checked against the script's current inputs, and when all fit the agent gets a new version (its
 * value as it is: what it runs changed under it), in one transaction with the item event that
 * tells caches and linked flows. On a mismatch nothing is written: the locker records it.
 */
@Injectable()
export class RevalidateAgentToolsUseCase {
  constructor(
    private readonly transactions: ItemTransactions,
    private readonly events: ItemEventWriter,
    private readonly modules: ModuleRef,
  ) {}

  revalidate(request: RevalidateAgentToolsRequest): Promise<RevalidateAgentToolsReply> {
    return this.transactions.run(undefined, async (manager) => {
      const [agent] = await manager.query<Array<{ value: unknown; description: string | null }>>(
        `SELECT value, description FROM resource
         WHERE workspace_id = $1 AND path = $2 AND resource_type = 'ai_agent' FOR UPDATE`,
        [request.workspace, request.path],
      );
      if (!agent) return { tools: [] };
      const [script] = await manager.query<Array<{ schema: unknown }>>(
        `SELECT v.schema FROM script s JOIN script_version v ON v.workspace_id = s.workspace_id AND v.hash = s.current_hash
         WHERE s.workspace_id = $1 AND s.path = $2`,
        [request.workspace, request.script_path],
      );
      const tools = checkScriptTools(agent.value, request.script_path, script?.schema ?? null);
      if (tools.length === 0 || tools.some((t) => t.problems.length > 0)) return { tools };
      // Versions live in VersionsModule, which needs this module's write listeners: looked up, not imported.
      const versions = this.modules.get(ResourceVersionRepository, { strict: false });
      const version = await versions.append(manager, {
        workspace: request.workspace,
        path: request.path,
        resourceType: 'ai_agent',
        value: agent.value,
        description: agent.description,
        createdBy: LOCKER,
      });
      await this.events.record(manager, {
        kind: 'resource',
        change: 'updated',
        workspace: request.workspace,
        path: request.path,
        resource_type: 'ai_agent',
        by: LOCKER,
      });
      return { tools, version };
    });
  }
}
