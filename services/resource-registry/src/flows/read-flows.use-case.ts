import { MeshError, type CallerIdentity, type Flow } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { toFlow, toFlowAtVersion, toListedFlow } from './flow.mapper.js';
import { FlowRepository } from './flow.repository.js';

const READ = { domain: 'flows', action: 'read' } as const;

/** Reads of flows: the current definition, or a saved version of it. */
@Injectable()
export class ReadFlowsUseCase {
  constructor(
    private readonly access: AccessService,
    private readonly flows: FlowRepository,
    private readonly transactions: ItemTransactions,
  ) {}

  async get(identity: CallerIdentity, path: string, version?: number): Promise<Flow> {
    const message = version === undefined ? notFoundMessage(path) : `flow ${path} has no version ${version}`;
    await this.access.assertCanRead(identity, path, READ, message);
    const manager = this.transactions.manager;
    const flow = await this.flows.find(manager, identity.workspace, path);
    if (!flow) throw new MeshError('NOT_FOUND', message, { path });
    if (version === undefined) return toFlow(flow);
    const saved = await this.flows.findVersion(manager, identity.workspace, path, version);
    if (!saved) throw new MeshError('NOT_FOUND', message, { path });
    return toFlowAtVersion(flow, saved);
  }

  async exists(identity: CallerIdentity, path: string): Promise<boolean> {
    if (!(await this.access.canRead(identity, path, 'flows'))) return false;
    return this.flows.exists(this.transactions.manager, identity.workspace, path);
  }

  async list(identity: CallerIdentity, pathPrefix: string | undefined) {
    const readable = await this.access.readFilter(identity, 'flows');
    const rows = await this.flows.list(this.transactions.manager, identity.workspace, pathPrefix);
    return rows.filter((row) => readable(row.path)).map(toListedFlow);
  }

  async listVersions(identity: CallerIdentity, path: string) {
    await this.access.assertCanRead(identity, path, READ, notFoundMessage(path));
    const versions = await this.flows.listVersions(this.transactions.manager, identity.workspace, path);
    if (versions.length === 0) throw new MeshError('NOT_FOUND', notFoundMessage(path), { path });
    return versions.map((v) => ({
      id: Number(v.id),
      created_by: v.createdBy,
      created_at: v.createdAt.toISOString(),
    }));
  }
}

export function notFoundMessage(path: string): string {
  return `flow ${path} not found`;
}
