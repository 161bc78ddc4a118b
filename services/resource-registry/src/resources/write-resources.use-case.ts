import { MeshError, type CallerIdentity, type Resource, type ValidationIssue } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AccessService } from '../access/access.service.js';
import { ItemEventWriter } from '../item-events/item-event.writer.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import type { ItemsConfig } from '../items/items.config.js';
import { ITEMS_CONFIG } from '../items/items.tokens.js';
import { foundOrThrow, itemAlreadyExists, itemChange, writingItem } from '../items/item-write.util.js';
import { assertWithinLimit, jsonByteLength } from '../items/value-size.util.js';
import type { WriteOptions } from '../items/write-options.js';
import { ResourceTypesService } from '../resource-types/resource-types.service.js';
import { ResourceEntity } from './resource.entity.js';
import { toResource } from './resource.mapper.js';
import { ResourceRepository } from './resource.repository.js';
import { withCarriedToolLocks } from '../locks/lockable-units.js';
import { ResourceWriteListeners, type ResourceWrite } from './resource-write.listeners.js';

const WRITE = { domain: 'resources', action: 'write' } as const;

export interface CreateResourceInput {
  readonly path: string;
  readonly resourceType: string;
  readonly value: unknown;
  readonly description?: string | null;
}

export interface UpdateResourceInput {
  readonly newPath?: string;
  readonly value?: unknown;
  readonly description?: string | null;
}

/**
 * Creates, changes and deletes resources. Each write checks the caller's access, the value's
 * size and its type's schema before touching anything, then writes the row, runs the write
 * listeners (resource history) and records the event, in one transaction.
 */
@Injectable()
export class WriteResourcesUseCase {
  constructor(
    private readonly access: AccessService,
    private readonly resources: ResourceRepository,
    private readonly types: ResourceTypesService,
    private readonly listeners: ResourceWriteListeners,
    private readonly events: ItemEventWriter,
    private readonly transactions: ItemTransactions,
    @Inject(ITEMS_CONFIG) private readonly config: ItemsConfig,
  ) {}

  async create(
    identity: CallerIdentity,
    input: CreateResourceInput,
    options: WriteOptions = {},
  ): Promise<Resource> {
    await this.access.assertCanCreate(identity, input.path, WRITE);
    this.assertSize(input.path, input.value);
    return this.transactions.run(options.manager, async (manager) => {
      await this.assertValid(manager, identity.workspace, input.resourceType, input.value);
      if (await this.resources.exists(manager, identity.workspace, input.path))
        throw itemAlreadyExists('resource', input.path);
      const after = await writingItem('resource', input.path, () =>
        this.resources.insert(manager, {
          workspaceId: identity.workspace,
          path: input.path,
          resourceType: input.resourceType,
          value: input.value,
          description: input.description ?? null,
          createdBy: identity.username,
          editedBy: identity.username,
        }),
      );
      await this.finish(manager, {
        change: 'created',
        identity,
        before: undefined,
        after,
        context: options.context ?? {},
      });
      return toResource(after);
    });
  }

  async update(
    identity: CallerIdentity,
    path: string,
    input: UpdateResourceInput,
    options: WriteOptions = {},
  ): Promise<Resource> {
    const renamed = await this.access.assertCanUpdate(
      identity,
      path,
      input.newPath,
      WRITE,
      notFoundMessage(path),
    );
    if (input.value !== undefined) this.assertSize(renamed ?? path, input.value);
    return this.transactions.run(options.manager, async (manager) => {
      const before = foundOrThrow(
        await this.resources.findForUpdate(manager, identity.workspace, path),
        path,
        notFoundMessage(path),
      );
      if (input.value !== undefined)
        await this.assertValid(manager, identity.workspace, before.resourceType, input.value);
      if (renamed && (await this.resources.exists(manager, identity.workspace, renamed)))
        throw itemAlreadyExists('resource', renamed);
      // An agent's tools saved without their locks keep them (dependency-locker writes new ones).
      const value =
        input.value === undefined
          ? before.value
          : before.resourceType === 'ai_agent'
            ? withCarriedToolLocks(before.value, input.value)
            : input.value;
      const after: ResourceEntity = Object.assign(new ResourceEntity(), before, {
        path: renamed ?? path,
        value,
        description: input.description === undefined ? before.description : input.description,
        editedBy: identity.username,
      });
      after.editedAt = await writingItem('resource', after.path, () =>
        this.resources.update(manager, before, after),
      );
      await this.finish(manager, {
        change: 'updated',
        identity,
        before,
        after,
        context: options.context ?? {},
      });
      return toResource(after);
    });
  }

  async delete(identity: CallerIdentity, path: string, options: WriteOptions = {}): Promise<void> {
    await this.access.assertCanWrite(identity, path, WRITE, notFoundMessage(path));
    await this.transactions.run(options.manager, async (manager) => {
      const before = foundOrThrow(
        await this.resources.findForUpdate(manager, identity.workspace, path),
        path,
        notFoundMessage(path),
      );
      await this.resources.delete(manager, identity.workspace, path);
      await this.finish(manager, {
        change: 'deleted',
        identity,
        before,
        after: undefined,
        context: options.context ?? {},
      });
    });
  }

  private async finish(manager: EntityManager, write: ResourceWrite): Promise<void> {
    await this.listeners.notify(manager, write);
    const row = (write.after ?? write.before)!;
    const { before, after } = write;
    const previousPath = before && after && before.path !== after.path ? before.path : undefined;
    await this.events.record(manager, {
      ...itemChange('resource', write.change, write.identity, row.path, previousPath),
      resource_type: row.resourceType,
    });
  }

  private assertSize(path: string, value: unknown): void {
    assertWithinLimit(`the value of resource ${path}`, jsonByteLength(value), this.config.maxValueBytes);
  }

  private async assertValid(
    manager: EntityManager,
    workspace: string,
    type: string,
    value: unknown,
  ): Promise<void> {
    const issues = await this.types.violations(manager, workspace, type, value);
    if (issues.length > 0) throw invalidValue(type, issues);
  }
}

export function notFoundMessage(path: string): string {
  return `resource ${path} not found`;
}

function invalidValue(type: string, issues: ValidationIssue[]): MeshError {
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new MeshError(
    'VALIDATION_FAILED',
    `invalid value for resource type "${type}": ${first.path}: ${first.message}${more}`,
    {
      issues,
    },
  );
}
