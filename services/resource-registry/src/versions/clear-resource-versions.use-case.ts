import { MeshError, type CallerIdentity } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { ReadResourcesUseCase } from '../resources/read-resources.use-case.js';
import { notFoundMessage } from '../resources/write-resources.use-case.js';
import { ResourceVersionRepository } from './resource-version.repository.js';

const WRITE = { domain: 'resources', action: 'write' } as const;

/**
 * "Clear past versions": after rotating a credential that was written inline, the old one must
 * not stay readable in the history. Keeps only the version holding the current value.
 */
@Injectable()
export class ClearResourceVersionsUseCase {
  constructor(
    private readonly access: AccessService,
    private readonly resources: ReadResourcesUseCase,
    private readonly versions: ResourceVersionRepository,
    private readonly transactions: ItemTransactions,
  ) {}

  async clear(identity: CallerIdentity, path: string): Promise<{ removed: number; kept: number | null }> {
    await this.access.assertCanWrite(identity, path, WRITE, notFoundMessage(path));
    if (!(await this.resources.exists(identity, path)))
      throw new MeshError('NOT_FOUND', notFoundMessage(path), { path });
    return this.transactions.run(undefined, (manager) =>
      this.versions.clearPast(manager, identity.workspace, path),
    );
  }
}
