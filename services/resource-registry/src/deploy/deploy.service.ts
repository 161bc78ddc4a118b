import {
  MeshError,
  type CallerIdentity,
  type DeployOrder,
  type DeployPlan,
  type DeployPlanEntry,
  type DeployResult,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { UpsertItemUseCase } from '../drafts/upsert-item.use-case.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { DeployPlanner, type DeployPlanning, type PlannedItem } from './deploy-planner.service.js';

/**
 * Deploy to another workspace. `plan` is the dry run. `apply` writes every item that is new or
 * (with `overwrite`) different through the items' own services, in one transaction: a conflict,
 * a missing variable or any failing write leaves the target exactly as it was.
 */
@Injectable()
export class DeployService {
  constructor(
    private readonly access: AccessService,
    private readonly planner: DeployPlanner,
    private readonly items: UpsertItemUseCase,
    private readonly transactions: ItemTransactions,
  ) {}

  async plan(identity: CallerIdentity, token: string, request: DeployOrder): Promise<DeployPlan> {
    this.access.assertScope(identity, 'deploy', 'read');
    const planning = await this.planner.plan(identity, token, request);
    return {
      source_workspace: identity.workspace,
      target_workspace: planning.target.workspace,
      entries: planning.items.map(publicEntry),
      variables: planning.variables,
      ready: planning.ready,
    };
  }

  async apply(identity: CallerIdentity, token: string, request: DeployOrder): Promise<DeployResult> {
    this.access.assertScope(identity, 'deploy', 'write');
    const planning = await this.planner.plan(identity, token, request);
    assertReady(planning);
    const writes = writeOrder(
      planning.items.filter((item) => item.action === 'create' || item.action === 'update'),
    );
    await this.transactions.run(undefined, async (manager) => {
      for (const item of writes) await this.items.upsert(planning.target, item.path, item.body, manager);
    });
    return {
      source_workspace: identity.workspace,
      target_workspace: planning.target.workspace,
      entries: planning.items.map(publicEntry),
      written: writes.length,
    };
  }
}

function assertReady(planning: DeployPlanning): void {
  const workspace = planning.target.workspace;
  const conflicts = planning.items.filter((item) => item.action === 'conflict');
  const first = conflicts[0];
  if (first) {
    const more = conflicts.length > 1 ? ` (and ${conflicts.length - 1} more)` : '';
    throw new MeshError(
      'CONFLICT',
      `${first.kind} ${first.path} exists in workspace "${workspace}" and differs${more}; deploy with overwrite to replace it`,
      { conflicts: conflicts.map(({ kind, path }) => ({ kind, path })) },
    );
  }
  const missing = planning.variables.filter((variable) => !variable.exists_in_target);
  const variable = missing[0];
  if (variable) {
    const more = missing.length > 1 ? ` (and ${missing.length - 1} more)` : '';
    throw new MeshError(
      'CONFLICT',
      `variable ${variable.path} (needed by ${variable.required_by.join(', ')}) does not exist in workspace "${workspace}"${more}; variables are not deployed, create it there first`,
      { missing_variables: missing.map(({ path }) => path) },
    );
  }
}

/**
 * A script needed both at a pinned version and as current is written pinned first, so the
 * current one ends up current; everything else keeps the plan's order.
 */
function writeOrder(items: PlannedItem[]): PlannedItem[] {
  return [
    ...items.filter((item) => item.ref.hash !== undefined),
    ...items.filter((item) => item.ref.hash === undefined),
  ];
}

function publicEntry(item: PlannedItem): DeployPlanEntry {
  return {
    kind: item.kind,
    path: item.path,
    action: item.action,
    requested: item.requested,
    required_by: item.required_by,
    ...(item.hash === undefined ? {} : { hash: item.hash }),
  };
}
