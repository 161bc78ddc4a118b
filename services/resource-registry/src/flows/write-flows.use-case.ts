import { MeshError, type CallerIdentity, type Flow } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AccessService } from '../access/access.service.js';
import { ItemEventWriter } from '../item-events/item-event.writer.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { DeployEventWriter } from '../locks/deploy-event.writer.js';
import { flowParts, withCarriedModuleLocks } from '../locks/lockable-units.js';
import type { ItemsConfig } from '../items/items.config.js';
import { ITEMS_CONFIG } from '../items/items.tokens.js';
import { isNulCharacter, isUniqueViolation } from '../items/postgres-error.util.js';
import { assertWithinLimit, jsonByteLength } from '../items/value-size.util.js';
import type { WriteOptions } from '../items/write-options.js';
import { assertValidFlow } from './flow-definition.validator.js';
import { FlowEntity } from './flow.entity.js';
import { toFlow } from './flow.mapper.js';
import { FlowRepository, type FlowDefinition } from './flow.repository.js';
import { notFoundMessage } from './read-flows.use-case.js';

const WRITE = { domain: 'flows', action: 'write' } as const;

/**
 * Saves flows. Every save is validated against the OpenFlow model first, then writes the flow,
 * appends a version and records the event in one transaction.
 */
@Injectable()
export class WriteFlowsUseCase {
  constructor(
    private readonly access: AccessService,
    private readonly flows: FlowRepository,
    private readonly events: ItemEventWriter,
    private readonly transactions: ItemTransactions,
    private readonly deploys: DeployEventWriter,
    @Inject(ITEMS_CONFIG) private readonly config: ItemsConfig,
  ) {}

  async create(
    identity: CallerIdentity,
    path: string,
    flow: FlowDefinition,
    options: WriteOptions = {},
  ): Promise<Flow> {
    await this.access.assertCanCreate(identity, path, WRITE);
    this.assertAcceptable(path, flow);
    return this.transactions.run(options.manager, async (manager) => {
      if (await this.flows.exists(manager, identity.workspace, path)) throw alreadyExists(path);
      const row = await this.write(path, async () => {
        const versionId = await this.flows.insertVersion(
          manager,
          identity.workspace,
          path,
          flow,
          identity.username,
        );
        return this.flows.insert(manager, {
          workspaceId: identity.workspace,
          path,
          ...flow,
          versionId,
          createdBy: identity.username,
          editedBy: identity.username,
        });
      });
      await this.record(manager, identity, 'created', path);
      await this.deployed(manager, identity, row);
      return toFlow(row);
    });
  }

  async update(
    identity: CallerIdentity,
    path: string,
    flow: FlowDefinition & { newPath?: string },
    options: WriteOptions = {},
  ): Promise<Flow> {
    await this.access.assertCanWrite(identity, path, WRITE, notFoundMessage(path));
    const renamed = flow.newPath !== undefined && flow.newPath !== path ? flow.newPath : undefined;
    if (renamed) await this.access.assertCanCreate(identity, renamed, WRITE);
    const newPath = renamed ?? path;
    const definition: FlowDefinition = {
      summary: flow.summary,
      description: flow.description,
      value: flow.value,
      schema: flow.schema,
    };
    this.assertAcceptable(newPath, definition);
    return this.transactions.run(options.manager, async (manager) => {
      const before = await this.flows.findForUpdate(manager, identity.workspace, path);
      if (!before) throw new MeshError('NOT_FOUND', notFoundMessage(path), { path });
      if (renamed && (await this.flows.exists(manager, identity.workspace, renamed)))
        throw alreadyExists(renamed);
      const carried = { ...definition, value: withCarriedModuleLocks(before.value, definition.value) };
      const after = await this.write(newPath, async () => {
        const versionId = await this.flows.insertVersion(
          manager,
          identity.workspace,
          newPath,
          carried,
          identity.username,
        );
        const next: FlowEntity = Object.assign(new FlowEntity(), before, carried, {
          path: newPath,
          versionId,
          editedBy: identity.username,
        });
        next.editedAt = await this.flows.update(manager, before, next);
        return next;
      });
      await this.record(manager, identity, 'updated', newPath, renamed ? path : undefined);
      await this.deployed(manager, identity, after, renamed ? path : undefined);
      return toFlow(after);
    });
  }

  async delete(identity: CallerIdentity, path: string, options: WriteOptions = {}): Promise<void> {
    await this.access.assertCanWrite(identity, path, WRITE, notFoundMessage(path));
    await this.transactions.run(options.manager, async (manager) => {
      const before = await this.flows.findForUpdate(manager, identity.workspace, path);
      if (!before) throw new MeshError('NOT_FOUND', notFoundMessage(path), { path });
      await this.flows.delete(manager, identity.workspace, path);
      await this.record(manager, identity, 'deleted', path);
      await this.deploys.deleted(manager, {
        workspace: identity.workspace,
        ownerKind: 'flow',
        path,
        by: identity.username,
      });
    });
  }

  /** dependency-locker locks the flow's inline code and maps what it runs by path, for this version. */
  private deployed(
    manager: EntityManager,
    identity: CallerIdentity,
    flow: FlowEntity,
    previousPath?: string,
  ): Promise<void> {
    return this.deploys.saved(manager, {
      workspace: identity.workspace,
      ownerKind: 'flow',
      path: flow.path,
      version: String(flow.versionId),
      ...(previousPath ? { previousPath } : {}),
      parts: flowParts(flow.value),
      by: identity.username,
    });
  }

  private assertAcceptable(path: string, flow: FlowDefinition): void {
    assertWithinLimit(
      `flow ${path}`,
      jsonByteLength(flow.value) + jsonByteLength(flow.schema),
      this.config.maxValueBytes,
    );
    assertValidFlow(path, flow);
  }

  private async record(
    manager: EntityManager,
    identity: CallerIdentity,
    change: 'created' | 'updated' | 'deleted',
    path: string,
    previousPath?: string,
  ): Promise<void> {
    await this.events.record(manager, {
      kind: 'flow',
      change,
      workspace: identity.workspace,
      path,
      ...(previousPath ? { previous_path: previousPath } : {}),
      by: identity.username,
    });
  }

  private async write<T>(path: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(path);
      if (isNulCharacter(error)) {
        throw new MeshError(
          'VALIDATION_FAILED',
          `value: flow ${path} contains the character U+0000, which cannot be stored`,
        );
      }
      throw error;
    }
  }
}

function alreadyExists(path: string): MeshError {
  return new MeshError('CONFLICT', `flow ${path} already exists`, { path });
}
