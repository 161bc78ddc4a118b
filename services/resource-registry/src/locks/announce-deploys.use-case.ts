import type { AnnounceDeploysReply } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { DeployEventWriter } from './deploy-event.writer.js';
import { agentParts, flowParts, scriptParts } from './lockable-units.js';

/** Who the announced deploys name. */
const LOCKER = 'dependency-locker';

/**
 * Announces every script (its current version), flow and `ai_agent` resource of a workspace again
 * as deployed, each as its own deploy would (`evt.deploy.saved`, the same units and references),
 * in one transaction through the outbox: dependency-locker rebuilds its map from them
 * (`locker.depmap.rebuild`, admins only; only the locker calls this).
 */
@Injectable()
export class AnnounceDeploysUseCase {
  constructor(
    private readonly transactions: ItemTransactions,
    private readonly deploys: DeployEventWriter,
  ) {}

  announce(workspace: string): Promise<AnnounceDeploysReply> {
    return this.transactions.run(undefined, async (manager) => {
      const scripts = await manager.query<
        Array<{ path: string; hash: string; language: string; content: string; lock: string | null }>
      >(
        `SELECT s.path, v.hash, v.language, v.content, v.lock FROM script s
         JOIN script_version v ON v.workspace_id = s.workspace_id AND v.hash = s.current_hash
         WHERE s.workspace_id = $1 ORDER BY s.path`,
        [workspace],
      );
      for (const s of scripts)
        await this.deploys.saved(manager, {
          workspace,
          ownerKind: 'script',
          path: s.path,
          version: s.hash,
          parts: scriptParts(s.language, s.content, s.lock),
          by: LOCKER,
        });
      const flows = await manager.query<Array<{ path: string; version_id: string; value: unknown }>>(
        `SELECT path, version_id, value FROM flow WHERE workspace_id = $1 ORDER BY path`,
        [workspace],
      );
      for (const f of flows)
        await this.deploys.saved(manager, {
          workspace,
          ownerKind: 'flow',
          path: f.path,
          version: String(f.version_id),
          parts: flowParts(f.value),
          by: LOCKER,
        });
      const agents = await manager.query<Array<{ path: string; value: unknown }>>(
        `SELECT path, value FROM resource WHERE workspace_id = $1 AND resource_type = 'ai_agent' ORDER BY path`,
        [workspace],
      );
      for (const a of agents)
        await this.deploys.saved(manager, {
          workspace,
          ownerKind: 'agent',
          path: a.path,
          version: '-',
          parts: agentParts(a.value),
          by: LOCKER,
        });
      return { scripts: scripts.length, flows: flows.length, agents: agents.length };
    });
  }
}
