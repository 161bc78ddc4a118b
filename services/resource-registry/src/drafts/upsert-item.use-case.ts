import { MeshError, UNVERSIONED_RESOURCE_TYPES, type CallerIdentity } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ReadFlowsUseCase } from '../flows/read-flows.use-case.js';
import { WriteFlowsUseCase } from '../flows/write-flows.use-case.js';
import { ReadResourcesUseCase } from '../resources/read-resources.use-case.js';
import { WriteResourcesUseCase } from '../resources/write-resources.use-case.js';
import { ReadScriptsUseCase } from '../scripts/read-scripts.use-case.js';
import { WriteScriptsUseCase } from '../scripts/write-scripts.use-case.js';
import { ResourceVersionRepository } from '../versions/resource-version.repository.js';
import type { FlowBody, ItemBody, ResourceBody, ScriptBody } from './item-body.schemas.js';

export interface UpsertedItem {
  readonly created: boolean;
  /** The resource version the write appended; null for scripts, flows and unversioned types. */
  readonly version: number | null;
}

/**
 * Writes an item from its body through the items' own services (access, validation, events,
 * history: nothing is bypassed), creating it or updating it, inside the caller's transaction.
 */
@Injectable()
export class UpsertItemUseCase {
  constructor(
    private readonly readResources: ReadResourcesUseCase,
    private readonly writeResources: WriteResourcesUseCase,
    private readonly readScripts: ReadScriptsUseCase,
    private readonly writeScripts: WriteScriptsUseCase,
    private readonly readFlows: ReadFlowsUseCase,
    private readonly writeFlows: WriteFlowsUseCase,
    private readonly versions: ResourceVersionRepository,
  ) {}

  async upsert(
    identity: CallerIdentity,
    path: string,
    item: ItemBody,
    manager: EntityManager,
  ): Promise<UpsertedItem> {
    switch (item.kind) {
      case 'resource':
        return this.resource(identity, path, item.body, manager);
      case 'script':
        return this.script(identity, path, item.body, manager);
      case 'flow':
        return this.flow(identity, path, item.body, manager);
    }
  }

  private async resource(
    identity: CallerIdentity,
    path: string,
    body: ResourceBody,
    manager: EntityManager,
  ): Promise<UpsertedItem> {
    const exists = await this.readResources.exists(identity, path);
    if (exists) {
      const current = await this.readResources.require(identity, path);
      if (current.resourceType !== body.resource_type) {
        throw new MeshError(
          'VALIDATION_FAILED',
          `resource_type: resource ${path} is of type "${current.resourceType}"; it cannot become "${body.resource_type}"`,
          { path },
        );
      }
      await this.writeResources.update(
        identity,
        path,
        { value: body.value, description: body.description },
        { manager },
      );
    } else {
      await this.writeResources.create(
        identity,
        { path, resourceType: body.resource_type, value: body.value, description: body.description ?? null },
        { manager },
      );
    }
    const version = UNVERSIONED_RESOURCE_TYPES.includes(body.resource_type)
      ? null
      : ((await this.versions.newest(manager, identity.workspace, path))?.version ?? null);
    return { created: !exists, version };
  }

  private async script(
    identity: CallerIdentity,
    path: string,
    body: ScriptBody,
    manager: EntityManager,
  ): Promise<UpsertedItem> {
    const exists = await this.readScripts.exists(identity, path);
    const input = {
      language: body.language,
      content: body.content,
      lock: body.lock ?? null,
      schema: body.schema ?? null,
      summary: body.summary,
      description: body.description ?? null,
    };
    if (exists) await this.writeScripts.update(identity, path, input, { manager });
    else await this.writeScripts.create(identity, path, input, { manager });
    return { created: !exists, version: null };
  }

  private async flow(
    identity: CallerIdentity,
    path: string,
    body: FlowBody,
    manager: EntityManager,
  ): Promise<UpsertedItem> {
    const exists = await this.readFlows.exists(identity, path);
    const definition = {
      summary: body.summary,
      description: body.description ?? null,
      value: body.value,
      schema: body.schema ?? null,
    };
    if (exists) await this.writeFlows.update(identity, path, definition, { manager });
    else await this.writeFlows.create(identity, path, definition, { manager });
    return { created: !exists, version: null };
  }
}
