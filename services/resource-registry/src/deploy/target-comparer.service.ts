import { MeshError, type CallerIdentity } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { ItemBody } from '../drafts/item-body.schemas.js';
import { ReadFlowsUseCase } from '../flows/read-flows.use-case.js';
import { ReadResourcesUseCase } from '../resources/read-resources.use-case.js';
import { ReadScriptsUseCase } from '../scripts/read-scripts.use-case.js';
import { jsonEqual } from '../versions/json-diff.util.js';
import type { ItemRef } from './item-dependencies.js';

export type TargetState = 'absent' | 'identical' | 'different';

/**
 * What the target workspace holds at an item's path, compared with what the deploy would write.
 * A script pinned by hash is identical when the target has that version (hashes do not depend
 * on the workspace); otherwise its current version and labels are compared.
 */
@Injectable()
export class TargetComparer {
  constructor(
    private readonly resources: ReadResourcesUseCase,
    private readonly scripts: ReadScriptsUseCase,
    private readonly flows: ReadFlowsUseCase,
  ) {}

  async compare(target: CallerIdentity, ref: ItemRef, item: ItemBody): Promise<TargetState> {
    switch (item.kind) {
      case 'resource': {
        if (!(await this.resources.exists(target, ref.path))) return 'absent';
        const current = await this.resources.get(target, ref.path);
        const { body } = item;
        return current.resource_type === body.resource_type &&
          jsonEqual(current.value, body.value) &&
          current.description === (body.description ?? null)
          ? 'identical'
          : 'different';
      }
      case 'script': {
        if (!(await this.scripts.exists(target, ref.path))) return 'absent';
        if (ref.hash !== undefined)
          return (await this.hasVersion(target, ref.path, ref.hash)) ? 'identical' : 'different';
        const current = await this.scripts.get(target, ref.path);
        const { body } = item;
        return current.language === body.language &&
          current.content === body.content &&
          current.lock === (body.lock ?? null) &&
          jsonEqual(current.schema, body.schema ?? null) &&
          current.summary === body.summary &&
          current.description === (body.description ?? null)
          ? 'identical'
          : 'different';
      }
      case 'flow': {
        if (!(await this.flows.exists(target, ref.path))) return 'absent';
        const current = await this.flows.get(target, ref.path);
        const { body } = item;
        return current.summary === body.summary &&
          current.description === (body.description ?? null) &&
          jsonEqual(current.value, body.value) &&
          jsonEqual(current.schema, body.schema ?? null)
          ? 'identical'
          : 'different';
      }
    }
  }

  private async hasVersion(target: CallerIdentity, path: string, hash: string): Promise<boolean> {
    try {
      await this.scripts.get(target, path, hash);
      return true;
    } catch (error) {
      if (error instanceof MeshError && error.code === 'NOT_FOUND') return false;
      throw error;
    }
  }
}
