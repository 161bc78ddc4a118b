import { MeshError, type CallerIdentity, type ResourceVersionSummary } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { WriteResourcesUseCase } from '../resources/write-resources.use-case.js';
import type { HistoryWriteContext } from './resource-history.recorder.js';
import { ResourceHistoryService } from './resource-history.service.js';
import { toVersionSummary } from './resource-version.mapper.js';
import { ResourceVersionRepository } from './resource-version.repository.js';

/**
 * Restore writes an old value forward: an ordinary resource update (access, schema, event, a new
 * version marked `restored_from`), so the history stays append-only and nothing is rewound.
 */
@Injectable()
export class RestoreResourceVersionUseCase {
  constructor(
    private readonly history: ResourceHistoryService,
    private readonly resources: WriteResourcesUseCase,
    private readonly versions: ResourceVersionRepository,
    private readonly transactions: ItemTransactions,
  ) {}

  async restore(identity: CallerIdentity, path: string, version: number): Promise<ResourceVersionSummary> {
    const old = await this.history.get(identity, path, version);
    const context: HistoryWriteContext = { restoredFrom: version };
    return this.transactions.run(undefined, async (manager) => {
      await this.resources.update(
        identity,
        path,
        { value: old.value, description: old.description },
        { manager, context: { ...context } },
      );
      const written = await this.versions.newest(manager, identity.workspace, path);
      if (!written) throw new MeshError('INTERNAL', `restoring resource ${path} wrote no version`);
      return toVersionSummary(written);
    });
  }
}
