import type { RevalidateFlowToolInputsReply, RevalidateFlowToolInputsRequest } from '@flowmesh/contracts';
import { visitModules } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { checkFlowToolInputs, linkedAgentOf, toolScriptPaths } from './agent-tool-inputs.js';

/**
 * A flow links an agent that changed (dependency-locker asks once the agent's tools fit their
 * scripts again): the `tool_inputs` overrides of its linked steps are checked against the agents
 * as they are and the current inputs of the scripts their tools run. Reads only (one snapshot); the locker
 * records and announces what no longer fits.
 */
@Injectable()
export class RevalidateFlowToolInputsUseCase {
  constructor(private readonly transactions: ItemTransactions) {}

  revalidate(request: RevalidateFlowToolInputsRequest): Promise<RevalidateFlowToolInputsReply> {
    return this.transactions.run(undefined, async (manager) => {
      const [flow] = await manager.query<Array<{ value: unknown }>>(
        `SELECT value FROM flow WHERE workspace_id = $1 AND path = $2`,
        [request.workspace, request.path],
      );
      if (!flow) return { steps: [] };
      const agentPaths = new Set<string>();
      visitModules(flow.value, [], ({ module }) => {
        const path = linkedAgentOf(module.value);
        if (path !== undefined) agentPaths.add(path);
      });
      if (agentPaths.size === 0) return { steps: [] };
      const agentRows = await manager.query<Array<{ path: string; value: unknown }>>(
        `SELECT path, value FROM resource WHERE workspace_id = $1 AND path = ANY($2) AND resource_type = 'ai_agent'`,
        [request.workspace, [...agentPaths]],
      );
      const agents = new Map(agentRows.map((r) => [r.path, r.value]));
      const scriptPaths = [...new Set(agentRows.flatMap((r) => toolScriptPaths(r.value)))];
      const schemaRows = await manager.query<Array<{ path: string; schema: unknown }>>(
        `SELECT s.path, v.schema FROM script s JOIN script_version v ON v.workspace_id = s.workspace_id AND v.hash = s.current_hash
       WHERE s.workspace_id = $1 AND s.path = ANY($2)`,
        [request.workspace, scriptPaths],
      );
      const schemas = new Map(schemaRows.map((r) => [r.path, r.schema]));
      return { steps: checkFlowToolInputs(flow.value, agents, schemas) };
    });
  }
}
