import {
  MeshError,
  type CallerIdentity,
  type ResourceVersion,
  type ResourceVersionDiff,
  type ResourceVersionSummary,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ReadResourcesUseCase } from '../resources/read-resources.use-case.js';
import { diffJson } from './json-diff.util.js';
import { toVersion, toVersionSummary } from './resource-version.mapper.js';
import { ResourceVersionRepository } from './resource-version.repository.js';

/**
 * Reading a resource's history: its versions, one of them, the changes between two. Whoever may
 * read the resource may read its history; to anyone else both are missing alike.
 */
@Injectable()
export class ResourceHistoryService {
  constructor(
    private readonly resources: ReadResourcesUseCase,
    private readonly versions: ResourceVersionRepository,
  ) {}

  async list(identity: CallerIdentity, path: string): Promise<ResourceVersionSummary[]> {
    await this.resources.require(identity, path);
    return (await this.versions.list(identity.workspace, path)).map(toVersionSummary);
  }

  async get(identity: CallerIdentity, path: string, version: number): Promise<ResourceVersion> {
    await this.resources.require(identity, path);
    return toVersion(await this.require(identity.workspace, path, version));
  }

  /** Changes of `{ resource_type, description, value }` from `from` to `to`. */
  async diff(identity: CallerIdentity, path: string, from: number, to: number): Promise<ResourceVersionDiff> {
    await this.resources.require(identity, path);
    const [before, after] = await Promise.all([
      this.require(identity.workspace, path, from),
      this.require(identity.workspace, path, to),
    ]);
    return { path, from, to, changes: diffJson(snapshot(before), snapshot(after)) };
  }

  private async require(workspace: string, path: string, version: number) {
    const row = await this.versions.find(workspace, path, version);
    if (!row) {
      throw new MeshError(
        'NOT_FOUND',
        `version ${version} of resource ${path} not found (it may have been dropped or cleared)`,
        {
          path,
          version,
        },
      );
    }
    return row;
  }
}

function snapshot(row: { resourceType: string; description: string | null; value: unknown }) {
  return { resource_type: row.resourceType, description: row.description, value: row.value };
}
