import type { CallerIdentity, Flow } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AccessService } from '../access/access.service.js';
import { ItemEventWriter } from '../item-events/item-event.writer.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { DeployEventWriter } from '../locks/deploy-event.writer.js';
import { flowParts, withCarriedModuleLocks } from '../locks/lockable-units.js';
import type { ItemsConfig } from '../items/items.config.js';
import { ITEMS_CONFIG } from '../items/items.tokens.js';
import { foundOrThrow, itemAlreadyExists, itemChange, writingItem } from '../items/item-write.util.js';
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
      if (await this.flows.exists(manager, identity.workspace, path)) throw itemAlreadyExists('flow', path);
      const row = await writingItem('flow', path, async () => {
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
      await this.events.record(manager, itemChange('flow', 'created', identity, path));
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
    const renamed = await this.access.assertCanUpdate(
      identity,
      path,
      flow.newPath,
      WRITE,
      notFoundMessage(path),
    );
    const newPath = renamed ?? path;
    const definition: FlowDefinition = {
      summary: flow.summary,
      description: flow.description,
      value: flow.value,
      schema: flow.schema,
    };
    this.assertAcceptable(newPath, definition);
    return this.transactions.run(options.manager, async (manager) => {
      const before = foundOrThrow(
        await this.flows.findForUpdate(manager, identity.workspace, path),
        path,
        notFoundMessage(path),
      );
      if (renamed && (await this.flows.exists(manager, identity.workspace, renamed)))
        throw itemAlreadyExists('flow', renamed);
      const carried = { ...definition, value: withCarriedModuleLocks(before.value, definition.value) };
      const after = await writingItem('flow', newPath, async () => {
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
      await this.events.record(
        manager,
        itemChange('flow', 'updated', identity, newPath, renamed ? path : undefined),
      );
      await this.deployed(manager, identity, after, renamed ? path : undefined);
      return toFlow(after);
    });
  }

  async delete(identity: CallerIdentity, path: string, options: WriteOptions = {}): Promise<void> {
    await this.access.assertCanWrite(identity, path, WRITE, notFoundMessage(path));
    await this.transactions.run(options.manager, async (manager) => {
      foundOrThrow(
        await this.flows.findForUpdate(manager, identity.workspace, path),
        path,
        notFoundMessage(path),
      );
      await this.flows.delete(manager, identity.workspace, path);
      await this.events.record(manager, itemChange('flow', 'deleted', identity, path));
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
}
