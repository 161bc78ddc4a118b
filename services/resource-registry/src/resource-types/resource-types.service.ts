import {
  BUILTIN_RESOURCE_TYPE_NAMES,
  findBuiltinResourceType,
  formatJsonPath,
  humanIssueMessage,
  MeshError,
  type CallerIdentity,
  type ResourceType,
  type ScopeAction,
  type ValidationIssue,
} from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { scopeAllows } from '../access/access-policy.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import type { ItemsConfig } from '../items/items.config.js';
import { ITEMS_CONFIG } from '../items/items.tokens.js';
import { assertWithinLimit, jsonByteLength } from '../items/value-size.util.js';
import { isUniqueViolation } from '../items/postgres-error.util.js';
import { aiAgentToolIssues } from './ai-agent-tools.check.js';
import { BuiltinResourceTypesService } from './builtin-resource-types.service.js';
import { ResourceTypeEntity } from './resource-type.entity.js';
import { toResourceType } from './resource-type.mapper.js';
import { ResourceTypeRepository } from './resource-type.repository.js';
import { ResourceValueValidator } from './resource-value.validator.js';

export interface ResourceTypeChanges {
  readonly schema?: Record<string, unknown>;
  readonly description?: string | null;
}

/**
 * Resource types: readable by every member of the workspace, created by any member whose scopes
 * allow `resource_types:write`, changed or deleted by their creator or an admin. Built-in types
 * cannot be changed, and their names cannot be taken.
 */
@Injectable()
export class ResourceTypesService {
  constructor(
    private readonly types: ResourceTypeRepository,
    private readonly builtins: BuiltinResourceTypesService,
    private readonly validator: ResourceValueValidator,
    private readonly transactions: ItemTransactions,
    @Inject(ITEMS_CONFIG) private readonly config: ItemsConfig,
  ) {}

  async get(identity: CallerIdentity, name: string): Promise<ResourceType> {
    assertScope(identity, 'read');
    return toResourceType(
      await this.require(this.transactions.manager, identity.workspace, name, notFound(name)),
    );
  }

  async list(identity: CallerIdentity): Promise<ResourceType[]> {
    assertScope(identity, 'read');
    const rows = await this.types.list(this.transactions.manager, identity.workspace);
    const present = new Set(rows.map((row) => row.name));
    const missing = this.builtins
      .builtinRows()
      .filter((builtin) => !present.has(builtin.name))
      .map((builtin) => this.synthesized(identity.workspace, builtin.name));
    return [...rows, ...missing.filter((row) => row !== undefined)]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map(toResourceType);
  }

  async create(
    identity: CallerIdentity,
    input: { name: string; schema: Record<string, unknown>; description?: string | null },
  ): Promise<ResourceType> {
    assertScope(identity, 'write');
    if (BUILTIN_RESOURCE_TYPE_NAMES.has(input.name)) {
      throw new MeshError('CONFLICT', `resource type "${input.name}" is built in; choose another name`, {
        name: input.name,
      });
    }
    this.checkSchema(input.name, input.schema);
    return this.transactions.run(undefined, async (manager) => {
      if (await this.types.find(manager, identity.workspace, input.name)) throw alreadyExists(input.name);
      try {
        const row = await this.types.insert(manager, {
          workspaceId: identity.workspace,
          name: input.name,
          schema: input.schema,
          description: input.description ?? null,
          builtin: false,
          createdBy: identity.username,
        });
        return toResourceType(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw alreadyExists(input.name);
        throw error;
      }
    });
  }

  async update(identity: CallerIdentity, name: string, changes: ResourceTypeChanges): Promise<ResourceType> {
    assertScope(identity, 'write');
    if (changes.schema) this.checkSchema(name, changes.schema);
    return this.transactions.run(undefined, async (manager) => {
      const row = await this.requireEditable(manager, identity, name);
      const schema = changes.schema ?? row.schema;
      const description = changes.description === undefined ? row.description : changes.description;
      await this.types.update(manager, identity.workspace, name, { schema, description });
      return toResourceType(Object.assign(row, { schema, description, editedAt: new Date() }));
    });
  }

  async delete(identity: CallerIdentity, name: string): Promise<void> {
    assertScope(identity, 'write');
    await this.transactions.run(undefined, async (manager) => {
      await this.requireEditable(manager, identity, name);
      const users = await this.types.countResourcesOfType(manager, identity.workspace, name);
      if (users > 0) {
        throw new MeshError(
          'CONFLICT',
          `resource type "${name}" is used by ${users} resource(s); delete them first`,
          {
            name,
            resources: users,
          },
        );
      }
      await this.types.delete(manager, identity.workspace, name);
    });
  }

  /**
   * Every violation of `value` against type `name`, for a resource write; an unknown type is a
   * VALIDATION_FAILED naming it.
   */
  async violations(
    manager: EntityManager,
    workspace: string,
    name: string,
    value: unknown,
  ): Promise<ValidationIssue[]> {
    const type = await this.require(manager, workspace, name, unknownType(name));
    const issues = this.validator.check(type.schema, value);
    if (issues.length === 0) return type.builtin && name === 'ai_agent' ? aiAgentToolIssues(value) : [];
    if (!type.builtin) return issues;
    // The same schema as zod gives sharper messages (one branch of a union, not all of them).
    const builtin = findBuiltinResourceType(name);
    const parsed = builtin?.value.safeParse(value, { error: humanIssueMessage });
    if (!parsed || parsed.success) return issues;
    return parsed.error.issues.map((issue) => ({
      path: formatValuePath(issue.path),
      message: issue.message,
    }));
  }

  private async require(
    manager: EntityManager,
    workspace: string,
    name: string,
    error: MeshError,
  ): Promise<ResourceTypeEntity> {
    const row = (await this.types.find(manager, workspace, name)) ?? this.synthesized(workspace, name);
    if (!row) throw error;
    return row;
  }

  /** A built-in type not yet written in this workspace (created after start-up): its definition as a row. */
  private synthesized(workspace: string, name: string): ResourceTypeEntity | undefined {
    const builtin = this.builtins.builtinRows().find((row) => row.name === name);
    if (!builtin) return undefined;
    const epoch = new Date(0);
    return Object.assign(new ResourceTypeEntity(), {
      workspaceId: workspace,
      name,
      schema: builtin.schema,
      description: builtin.description,
      builtin: true,
      createdBy: 'system',
      createdAt: epoch,
      editedAt: epoch,
    });
  }

  private async requireEditable(
    manager: EntityManager,
    identity: CallerIdentity,
    name: string,
  ): Promise<ResourceTypeEntity> {
    const row = await this.require(manager, identity.workspace, name, notFound(name));
    if (row.builtin) {
      throw new MeshError(
        'PERMISSION_DENIED',
        `resource type "${name}" is built in and cannot be changed or deleted`,
        { name },
      );
    }
    if (!identity.isAdmin && row.createdBy !== identity.username) {
      throw new MeshError(
        'PERMISSION_DENIED',
        `only ${row.createdBy} or an admin may change resource type "${name}"`,
        { name },
      );
    }
    return row;
  }

  private checkSchema(name: string, schema: Record<string, unknown>): void {
    assertWithinLimit(
      `the schema of resource type "${name}"`,
      jsonByteLength(schema),
      this.config.maxValueBytes,
    );
    this.validator.compile(schema);
  }
}

function assertScope(identity: CallerIdentity, action: ScopeAction): void {
  if (!scopeAllows(identity, { domain: 'resource_types', action }, undefined)) {
    throw new MeshError('PERMISSION_DENIED', `the token's scopes do not allow resource_types:${action}`);
  }
}

function notFound(name: string): MeshError {
  return new MeshError('NOT_FOUND', `resource type "${name}" not found`, { name });
}

function unknownType(name: string): MeshError {
  return new MeshError('VALIDATION_FAILED', `resource_type: unknown resource type "${name}"`, {
    issues: [{ path: 'resource_type', message: `unknown resource type "${name}"` }],
  });
}

function alreadyExists(name: string): MeshError {
  return new MeshError('CONFLICT', `resource type "${name}" already exists`, { name });
}

function formatValuePath(path: readonly PropertyKey[]): string {
  return formatJsonPath(['value', ...path]);
}
