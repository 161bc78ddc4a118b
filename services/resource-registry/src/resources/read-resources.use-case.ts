import { MeshError, type CallerIdentity, type ListedResource, type Resource } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { deepFreeze } from '../items/deep-freeze.util.js';
import { ItemReadCache, type LoadedItem } from '../items/item-read.cache.js';
import type { ResourceEntity } from './resource.entity.js';
import { toListedResource, toResource } from './resource.mapper.js';
import { ResourceRepository } from './resource.repository.js';
import { notFoundMessage } from './write-resources.use-case.js';

const READ = { domain: 'resources', action: 'read' } as const;

/** A resource as interpolation reads it. Shared with other requests through the read cache: frozen. */
export interface ResourceValue {
  readonly resourceType: string;
  readonly value: unknown;
}

/** What a missing row weighs in the read cache. */
const MISSING_ROW_BYTES = 64;

/** Reads of resources. One the caller may not read is NOT_FOUND, worded as a missing one. */
@Injectable()
export class ReadResourcesUseCase {
  constructor(
    private readonly access: AccessService,
    private readonly resources: ResourceRepository,
    private readonly transactions: ItemTransactions,
    private readonly cache: ItemReadCache,
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

  /**
   * Type and value, for interpolation: the access check runs on every call, the row comes from
   * the read cache (dropped when the resource is written, here or by another replica).
   */
  async requireValue(identity: CallerIdentity, path: string): Promise<ResourceValue> {
    const [, row] = await Promise.all([
      this.access.assertCanRead(identity, path, READ, notFoundMessage(path)),
      this.cache.get('resource', identity.workspace, path, () => this.loadValue(identity.workspace, path)),
    ]);
    if (!row) throw new MeshError('NOT_FOUND', notFoundMessage(path), { path });
    return row;
  }

  private async loadValue(workspace: string, path: string): Promise<LoadedItem<ResourceValue>> {
    const stored = await this.resources.findValue(this.transactions.manager, workspace, path);
    if (!stored) return { row: null, bytes: MISSING_ROW_BYTES + path.length };
    return {
      row: deepFreeze({ resourceType: stored.resourceType, value: stored.value }),
      bytes: stored.jsonLength + path.length,
    };
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
