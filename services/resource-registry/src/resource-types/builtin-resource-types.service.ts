import { BUILTIN_RESOURCE_TYPES, builtinResourceTypeJsonSchema } from '@flowmesh/contracts';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ResourceTypeRepository, type BuiltinTypeRow } from './resource-type.repository.js';

/**
 * Keeps the built-in resource types (AI providers, `mcp`, `ai_agent`, `s3`, `postgresql`,
 * `state`, `cache`) in every workspace, equal to their definitions in the contracts: at start-up
 * for the workspaces that exist, and through `ensureForWorkspace` for one created later.
 */
@Injectable()
export class BuiltinResourceTypesService implements OnApplicationBootstrap {
  private readonly log = new Logger('BuiltinResourceTypes');
  private rows?: BuiltinTypeRow[];

  constructor(
    private readonly dataSource: DataSource,
    private readonly types: ResourceTypeRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const workspaces = await this.types.listWorkspaceIds(this.dataSource.manager);
    const written = await this.types.upsertBuiltins(this.dataSource.manager, workspaces, this.builtinRows());
    if (written > 0)
      this.log.log(
        `built-in resource types: ${written} created or updated in ${workspaces.length} workspace(s)`,
      );
  }

  /** Creates or refreshes the built-in types of one workspace (call it in the transaction that creates it). */
  async ensureForWorkspace(manager: EntityManager, workspaceId: string): Promise<void> {
    await this.types.upsertBuiltins(manager, [workspaceId], this.builtinRows());
  }

  builtinRows(): BuiltinTypeRow[] {
    this.rows ??= BUILTIN_RESOURCE_TYPES.map((type) => ({
      name: type.name,
      schema: builtinResourceTypeJsonSchema(type),
      description: type.description,
    }));
    return this.rows;
  }
}
