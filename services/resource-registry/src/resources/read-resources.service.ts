import { MeshError, type CallerIdentity, type ListedResource, type Resource } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import type { ResourceEntity } from './resource.entity.js';
import { toListedResource, toResource } from './resource.mapper.js';
import { ResourceRepository } from './resource.repository.js';
import { notFoundMessage } from './write-resources.service.js';

const READ = { domain: 'resources', action: 'read' } as const;

/** Reads of resources. One the caller may not read is NOT_FOUND, worded as a missing one. */
@Injectable()
export class ReadResourcesService {
  constructor(
    private readonly access: AccessService,
    private readonly resources: ResourceRepository,
    private readonly transactions: ItemTransactions,
  ) {}

  async get(identity: CallerIdentity, path: string): Promise<Resource> {
    return toResource(await this.require(identity, path));
  }

  /** The row, for a reader that needs its type too (interpolation). */
  async require(identity: CallerIdentity, path: string): Promise<ResourceEntity> {
    // The check and the read go to Postgres together; the row is used only once the check passed.
    const [, row] = await Promise.all([
      this.access.assertCanRead(identity, path, READ, notFoundMessage(path)),
      this.resources.find(this.transactions.manager, identity.workspace, path),
    ]);
    if (!row) throw new MeshError('NOT_FOUND', notFoundMessage(path), { path });
    return row;
  }

  async exists(identity: CallerIdentity, path: string): Promise<boolean> {
    if (!(await this.access.canRead(identity, path, 'resources'))) return false;
    return this.resources.exists(this.transactions.manager, identity.workspace, path);
  }

  async list(
    identity: CallerIdentity,
    filter: { resourceTypes?: readonly string[]; pathPrefix?: string },
  ): Promise<ListedResource[]> {
    const readable = await this.access.readFilter(identity, 'resources');
    const rows = await this.resources.list(this.transactions.manager, identity.workspace, filter);
    return rows.filter((row) => readable(row.path)).map(toListedResource);
  }
}
