import { LOCK_EVENTS, type DeletedOwner, type DeployedOwner } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LockEventsPublisher } from '../cascade/lock-events.publisher.js';
import { LockJobRepository } from '../cascade/lock-job.repository.js';
import { LockJobRunner } from '../cascade/lock-job.runner.js';
import { DependencyEdgeRepository } from '../map/dependency-edge.repository.js';
import { LockRecordRepository } from '../map/lock-record.repository.js';

/**
 * A deploy, as the locker keeps it: the owner's code (what later locks and the imports of other
 * scripts read), its references by path as edges, and a lock job due at once, in one
 * transaction. A cascade job waiting for the same owner is superseded: this deploy locks it all.
 * Redelivered events are harmless: the same code is recorded again and one job stays queued.
 */
@Injectable()
export class DeploysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly records: LockRecordRepository,
    private readonly edges: DependencyEdgeRepository,
    private readonly jobs: LockJobRepository,
    private readonly runner: LockJobRunner,
    private readonly events: LockEventsPublisher,
  ) {}

  async saved(event: DeployedOwner): Promise<void> {
    const owner = { workspace: event.workspace, kind: event.owner_kind, path: event.path };
    const superseded = await this.dataSource.transaction(async (manager) => {
      if (event.previous_path)
        await this.edges.removeImporter(manager, { ...owner, path: event.previous_path });
      await this.records.recordDeploy(manager, event);
      await this.edges.rewrite(
        owner,
        { kinds: 'refs' },
        event.refs.map((ref) => ({
          importerNodeId: ref.node_id,
          edgeKind: ref.edge_kind,
          importedKind: ref.imported_kind,
          importedPath: ref.imported_path,
          importedLockSha256: null,
        })),
        manager,
      );
      return this.jobs.enqueueDeploy(manager, owner);
    });
    if (superseded.length > 0)
      await this.events.publish(LOCK_EVENTS.superseded, {
        workspace: owner.workspace,
        owner_kind: owner.kind,
        path: owner.path,
        version: event.version,
        node_ids: [],
        at: new Date().toISOString(),
      });
    this.runner.wake();
  }

  async deleted(event: DeletedOwner): Promise<void> {
    const owner = { workspace: event.workspace, kind: event.owner_kind, path: event.path };
    await this.dataSource.transaction(async (manager) => {
      await this.records.removeOwner(manager, owner);
      await this.edges.removeImporter(manager, owner);
      await this.jobs.dropQueued(manager, owner);
    });
  }
}
