import {
  createRegistryIdentityClient,
  lockerContract,
  MeshError,
  type LockStatusReply,
  type RegistryIdentityClient,
  type RequestOf,
} from '@flowmesh/contracts';
import { HandleRequest, MeshClient } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DependencyEdgeRepository } from '../map/dependency-edge.repository.js';
import { LockRecordRepository } from '../map/lock-record.repository.js';
import { ToolRevalidationRepository } from '../revalidation/tool-revalidation.repository.js';

const DOMAIN = { script: 'scripts', flow: 'flows', agent: 'resources' } as const;

/**
 * `locker.lock.status`: an owner's locks (with the error log of a failed one) and its imports.
 * The registry decides who may read it: whoever may read the item; anyone else gets NOT_FOUND.
 */
@Controller()
export class LockStatusHandler {
  private readonly identity: RegistryIdentityClient;

  constructor(
    private readonly records: LockRecordRepository,
    private readonly edges: DependencyEdgeRepository,
    private readonly revalidations: ToolRevalidationRepository,
    mesh: MeshClient,
  ) {
    this.identity = createRegistryIdentityClient(mesh);
  }

  @HandleRequest(lockerContract.lockStatus)
  async status(@Payload() req: RequestOf<typeof lockerContract.lockStatus>): Promise<LockStatusReply> {
    const { allowed } = await this.identity.checkAccess({
      actor: req.actor,
      workspace: req.workspace,
      path: req.path,
      action: 'read',
      domain: DOMAIN[req.owner_kind],
    });
    if (!allowed)
      throw new MeshError('NOT_FOUND', `${req.owner_kind} ${req.path} not found`, { path: req.path });
    const owner = { workspace: req.workspace, kind: req.owner_kind, path: req.path };
    const [units, imports, revalidations] = await Promise.all([
      this.records.units(owner),
      this.edges.importsOf(owner),
      this.revalidations.of(owner),
    ]);
    return {
      units: units.map((u) => ({
        node_id: u.nodeId,
        language: u.language,
        version: u.ownerVersion,
        code_sha256: u.codeSha256,
        status: u.status,
        lock_sha256: u.lockSha256,
        error_log: u.errorLog,
        locked_at: u.lockedAt ? new Date(u.lockedAt).toISOString() : null,
      })),
      revalidations: revalidations.map((r) => ({
        node_id: r.nodeId,
        because_of: r.becauseOf,
        status: r.status,
        error_log: r.errorLog,
        checked_at: new Date(r.checkedAt).toISOString(),
      })),
      imports: imports.map((e) => ({
        node_id: e.importerNodeId,
        edge_kind: e.edgeKind,
        imported_kind: e.importedKind,
        imported_path: e.importedPath,
        imported_lock_sha256: e.importedLockSha256,
      })),
    };
  }
}
