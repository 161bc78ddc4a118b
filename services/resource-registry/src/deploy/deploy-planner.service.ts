import {
  DEPLOY_MAX_ITEMS,
  MeshError,
  type CallerIdentity,
  type DeployAction,
  type DeployItemRef,
  type DeployPlanEntry,
  type DeployOrder,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { itemDomain } from '../drafts/draft-access.util.js';
import type { ItemBody } from '../drafts/item-body.schemas.js';
import { ReadVariablesUseCase } from '../variables/read-variables.use-case.js';
import { itemKey, type ItemRef } from './item-dependencies.js';
import { TargetComparer } from './target-comparer.service.js';
import { SourceItemReader } from './source-item.reader.js';

export interface PlannedItem extends DeployPlanEntry {
  readonly ref: ItemRef;
  readonly body: ItemBody;
}

export interface DeployPlanning {
  readonly target: CallerIdentity;
  /** Dependencies before the items that need them. */
  readonly items: PlannedItem[];
  readonly variables: Array<{ path: string; exists_in_target: boolean; required_by: string[] }>;
  readonly ready: boolean;
}

interface Visit {
  readonly ref: ItemRef;
  readonly body: ItemBody;
  readonly requested: boolean;
  readonly requiredBy: Set<string>;
}

/**
 * Works out a deploy: the closure of the requested items in the source workspace (read as the
 * caller: an item it may not read stops the deploy as a missing one would), then, for each item,
 * whether the target lacks it, holds the same, or holds something else. The caller must be able
 * to write every target path.
 */
@Injectable()
export class DeployPlanner {
  constructor(
    private readonly access: AccessService,
    private readonly source: SourceItemReader,
    private readonly comparer: TargetComparer,
    private readonly variables: ReadVariablesUseCase,
  ) {}

  /** `token`: the caller's; it stands for the caller in the target too unless the order names a `target_actor`. */
  async plan(identity: CallerIdentity, token: string, request: DeployOrder): Promise<DeployPlanning> {
    if (request.target_workspace === identity.workspace) {
      throw new MeshError('VALIDATION_FAILED', 'target_workspace: must differ from the source workspace');
    }
    const target = await this.access.authenticate(
      request.target_actor?.token ?? token,
      request.target_workspace,
    );
    const visits = new Map<string, Visit>();
    const order: Visit[] = [];
    const variables = new Map<string, Set<string>>();

    const visit = async (ref: ItemRef, parent: string | undefined): Promise<void> => {
      const key = itemKey(ref);
      const known = visits.get(key);
      if (known) {
        if (parent) known.requiredBy.add(parent);
        return;
      }
      if (visits.size >= DEPLOY_MAX_ITEMS) {
        throw new MeshError(
          'LIMIT_EXCEEDED',
          `items: a deploy writes at most ${DEPLOY_MAX_ITEMS} items, dependencies included`,
        );
      }
      const loaded = await this.source.read(identity, ref, parent);
      const entry: Visit = {
        ref,
        body: loaded.body,
        requested: parent === undefined,
        requiredBy: new Set(parent ? [parent] : []),
      };
      visits.set(key, entry);
      for (const dependency of loaded.dependencies.items) await visit(dependency, key);
      for (const path of loaded.dependencies.variables)
        variables.set(path, (variables.get(path) ?? new Set()).add(key));
      order.push(entry);
    };
    for (const ref of request.items) await visit(toRef(ref), undefined);
    // A requested item that another requested item also needs is still "requested".
    for (const ref of request.items) {
      const entry = visits.get(itemKey(toRef(ref)));
      if (entry && !entry.requested) visits.set(itemKey(toRef(ref)), { ...entry, requested: true });
    }

    await this.assertCanWriteAll(target, order);
    const items: PlannedItem[] = [];
    for (const { ref } of order) {
      const entry = visits.get(itemKey(ref))!;
      const state = await this.comparer.compare(target, ref, entry.body);
      const action: DeployAction =
        state === 'absent'
          ? 'create'
          : state === 'identical'
            ? 'unchanged'
            : request.overwrite
              ? 'update'
              : 'conflict';
      items.push({
        ref,
        body: entry.body,
        kind: ref.kind,
        path: ref.path,
        action,
        requested: entry.requested,
        required_by: [...entry.requiredBy],
        ...(ref.hash === undefined ? {} : { hash: ref.hash }),
      });
    }
    const variableRefs = await Promise.all(
      [...variables].map(async ([path, requiredBy]) => ({
        path,
        exists_in_target: await this.variables.exists(target, path),
        required_by: [...requiredBy],
      })),
    );
    const ready =
      items.every((item) => item.action !== 'conflict') && variableRefs.every((v) => v.exists_in_target);
    return { target, items, variables: variableRefs, ready };
  }

  private async assertCanWriteAll(target: CallerIdentity, items: readonly Visit[]): Promise<void> {
    const denied: string[] = [];
    for (const { ref } of items) {
      if (!(await this.access.canWrite(target, ref.path, itemDomain(ref.kind))))
        denied.push(`${ref.kind} ${ref.path}`);
    }
    if (denied.length === 0) return;
    const more = denied.length > 1 ? ` (and ${denied.length - 1} more)` : '';
    throw new MeshError(
      'PERMISSION_DENIED',
      `${target.username} may not write ${denied[0]} in workspace "${target.workspace}"${more}`,
      { denied },
    );
  }
}

function toRef(ref: DeployItemRef): ItemRef {
  return { kind: ref.kind, path: ref.path };
}
