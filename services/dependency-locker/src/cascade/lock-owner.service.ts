import {
  createRegistryLocksClient,
  LOCK_EVENTS,
  lockedScriptsOf,
  MeshError,
  npmLockText,
  parseNpmLockText,
  parsePythonLockText,
  pythonLockText,
  type RegistryLocksClient,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LOCKER_SETTINGS, type LockerSettings } from '../dependency-locker.config.js';
import { UnitLocker } from '../locking/unit-locker.service.js';
import { DependencyEdgeRepository } from '../map/dependency-edge.repository.js';
import {
  LockRecordRepository,
  sha256,
  type LockRecord,
  type OwnerKey,
} from '../map/lock-record.repository.js';
import { ownerKey, planCascade } from './cascade-planner.js';
import { LockEventsPublisher } from './lock-events.publisher.js';
import { ToolRevalidationRepository } from '../revalidation/tool-revalidation.repository.js';
import { LockJobRepository, type LockJob } from './lock-job.repository.js';

export type JobOutcome = { status: 'done' | 'skipped' | 'superseded' | 'failed'; outcome: string };

/** A check of what an owner runs by path: `ok` (an agent's version bumped, on `version`) or `mismatch`. */
type ByPathCheck = { outcome?: 'ok' | 'mismatch'; version?: string };

/**
 * Runs one lock job: locks the owner's units (all of them for a deploy, the named ones for a
 * cascade), writes the locks back into the owner through the registry (only onto the version
 * they were made for), rewrites the owner's import edges, and plans the cascade over its
 * dependents. A cascade re-lock whose imports' locks are all as they were is skipped; its locks
 * then only name the versions of the scripts they import that are deployed now (workers run those).
 */
@Injectable()
export class LockOwnerService {
  private readonly log = new Logger('LockOwner');
  private readonly registry: RegistryLocksClient;

  constructor(
    private readonly records: LockRecordRepository,
    private readonly edges: DependencyEdgeRepository,
    private readonly jobs: LockJobRepository,
    private readonly units: UnitLocker,
    private readonly events: LockEventsPublisher,
    private readonly revalidations: ToolRevalidationRepository,
    @Inject(LOCKER_SETTINGS) private readonly settings: LockerSettings,
    mesh: MeshClient,
  ) {
    this.registry = createRegistryLocksClient(mesh);
  }

  async run(job: LockJob): Promise<JobOutcome> {
    const owner: OwnerKey = { workspace: job.workspace, kind: job.ownerKind, path: job.ownerPath };
    // What it runs by path is checked whether or not its own code is re-locked too (an agent may
    // import a script and run it as a tool); a misfit is recorded and the cascade stops here.
    const checked = job.cause === 'cascade' ? await this.checkByPath(job, owner) : {};
    const fits = checked.outcome !== 'mismatch';
    if (job.action === 'revalidate') {
      if (fits) await this.cascade(job, owner);
      await this.announceRevalidated(job, owner, checked);
      return { status: 'done', outcome: checked.outcome ? `revalidated: ${checked.outcome}` : 'revalidated' };
    }
    // Announced after the cascade it may plan, so whoever hears it has heard that plan too.
    const revalidated = async () => {
      if (checked.outcome) await this.announceRevalidated(job, owner, checked);
    };
    const all = await this.records.units(owner);
    const wanted = job.nodeIds ? all.filter((r) => job.nodeIds!.includes(r.nodeId)) : all;
    if (job.action === 'relock' && (await this.importsUnchanged(owner, wanted))) {
      await this.repin(owner, wanted);
      await this.events.publish(LOCK_EVENTS.skipped, {
        workspace: owner.workspace,
        owner_kind: owner.kind,
        path: owner.path,
        cascade_root: job.cascadeRoot ?? '',
        node_ids: wanted.map((u) => u.nodeId),
        at: new Date().toISOString(),
      });
      // Its lock is as it was, but it passed a check: what depends on it waited for that.
      if (checked.outcome === 'ok') await this.cascade(job, owner);
      await revalidated();
      return { status: 'skipped', outcome: 'no imported lock changed' };
    }

    const before = combinedSha(all);
    const locked: Array<{ unit: LockRecord; lock: string; directImports: string[] }> = [];
    let failed = 0;
    for (const unit of wanted) {
      try {
        const result = await this.units.lock({
          workspace: owner.workspace,
          ownerKind: owner.kind,
          ownerPath: owner.path,
          language: unit.language,
          content: unit.content,
        });
        locked.push({ unit, ...result });
      } catch (error) {
        failed++;
        await this.failed(job, owner, unit, error);
      }
    }
    const written = await this.writeBack(owner, locked);
    for (const { unit, lock, directImports } of locked) {
      if (!written.has(unit.nodeId)) continue;
      await this.records.saveLock(owner, unit, lock);
      const hashes = await this.records.scriptLockHashes(owner.workspace, directImports);
      await this.edges.rewrite(
        owner,
        { kinds: 'imports', nodeIds: [unit.nodeId] },
        directImports.map((path) => ({
          importerNodeId: unit.nodeId,
          edgeKind: 'relative_import' as const,
          importedKind: 'script' as const,
          importedPath: path,
          importedLockSha256: hashes.get(path) ?? null,
        })),
      );
    }
    const superseded = locked.filter((l) => !written.has(l.unit.nodeId)).map((l) => l.unit.nodeId);
    if (superseded.length > 0)
      await this.events.publish(LOCK_EVENTS.superseded, {
        workspace: owner.workspace,
        owner_kind: owner.kind,
        path: owner.path,
        version: locked[0].unit.ownerVersion,
        node_ids: superseded,
        at: new Date().toISOString(),
      });
    if (written.size === 0 && wanted.length > 0)
      return failed > 0
        ? { status: 'failed', outcome: `${failed} of ${wanted.length} units failed to lock` }
        : { status: 'superseded', outcome: 'a newer deploy of the owner landed' };

    const after = combinedSha(await this.records.units(owner));
    if (written.size > 0)
      await this.events.publish(LOCK_EVENTS.completed, {
        workspace: owner.workspace,
        owner_kind: owner.kind,
        path: owner.path,
        version: locked[0].unit.ownerVersion,
        cause: job.cause,
        ...(job.cascadeRoot ? { cascade_root: job.cascadeRoot } : {}),
        node_ids: [...written].sort(),
        lock_sha256: after,
        changed: after !== before,
        at: new Date().toISOString(),
      });
    // A deploy always cascades (what runs it by path is checked again); a re-lock only when it
    // changed something or passed a check, never past a misfit.
    if (fits && (job.cause === 'deploy' || after !== before || checked.outcome === 'ok'))
      await this.cascade(job, owner);
    await revalidated();
    return {
      status: failed > 0 ? 'failed' : 'done',
      outcome: `${written.size} locked${failed > 0 ? `, ${failed} failed` : ''}${after === before ? ', unchanged' : ''}`,
    };
  }

  /** The cascade of a skipped relock: its imports' locks are what it was locked with. */
  private async importsUnchanged(owner: OwnerKey, units: readonly LockRecord[]): Promise<boolean> {
    const ids = new Set(units.map((u) => u.nodeId));
    const imports = (await this.edges.importsOf(owner)).filter(
      (e) => e.edgeKind === 'relative_import' && ids.has(e.importerNodeId),
    );
    if (imports.length === 0 || units.some((u) => u.status !== 'ok')) return false;
    const hashes = await this.records.scriptLockHashes(
      owner.workspace,
      imports.map((e) => e.importedPath),
    );
    return imports.every(
      (e) => e.importedLockSha256 !== null && hashes.get(e.importedPath) === e.importedLockSha256,
    );
  }

  private async announceRevalidated(job: LockJob, owner: OwnerKey, checked: ByPathCheck): Promise<void> {
    await this.events.publish(LOCK_EVENTS.revalidated, {
      workspace: owner.workspace,
      owner_kind: owner.kind,
      path: owner.path,
      cascade_root: job.cascadeRoot ?? ownerKey(owner.kind, owner.path),
      because_of: job.becauseOf ?? '',
      edge_kind: job.edgeKind ?? 'path_step',
      ...checked,
      at: new Date().toISOString(),
    });
  }

  /**
   * What a cascade job's owner runs by path, checked against what this cascade changed (its root
   * and the owners it planned): an agent's tools running such a script (`path_tool`), a flow's
   * `tool_inputs` overrides for such an agent (`linked_agent`). Nothing else is checked.
   */
  private async checkByPath(job: LockJob, owner: OwnerKey): Promise<ByPathCheck> {
    const changed = new Set([...job.alreadyVisited, job.cascadeRoot, job.becauseOf]);
    const refs = (await this.edges.importsOf(owner)).filter((e) =>
      changed.has(ownerKey(e.importedKind, e.importedPath)),
    );
    if (owner.kind === 'agent') {
      const scripts = new Set(
        refs
          .filter((e) => e.edgeKind === 'path_tool' && e.importedKind === 'script')
          .map((e) => e.importedPath),
      );
      let result: ByPathCheck = {};
      for (const script of [...scripts].sort()) {
        const one = await this.checkAgentTools(owner, script);
        if (one.outcome && result.outcome !== 'mismatch') result = one;
      }
      return result;
    }
    if (owner.kind === 'flow' && refs.some((e) => e.edgeKind === 'linked_agent'))
      return this.checkFlowToolInputs(job, owner);
    return {};
  }

  /**
   * An agent whose tool runs a redeployed script by path: the registry checks the tools' inputs
   * against the script's and bumps the agent's version when they fit. Each tool's outcome is
   * recorded on the agent (`locker.lock.status`); a mismatch is announced (`evt.lock.tool_mismatch`),
   * a bump too (`evt.lock.agent_changed`).
   */
  private async checkAgentTools(owner: OwnerKey, scriptPath: string): Promise<ByPathCheck> {
    const because = ownerKey('script', scriptPath);
    const reply = await this.registry.revalidateAgentTools({
      workspace: owner.workspace,
      path: owner.path,
      script_path: scriptPath,
    });
    if (reply.tools.length === 0) return {};
    const mismatched = await this.recordChecks(owner, because, reply.tools);
    if (reply.version === undefined || mismatched) return { outcome: 'mismatch' };
    const version = String(reply.version);
    await this.events.publish(LOCK_EVENTS.agentChanged, {
      workspace: owner.workspace,
      path: owner.path,
      version,
      because_of: because,
      at: new Date().toISOString(),
    });
    return { outcome: 'ok', version };
  }

  /**
   * A flow linking an agent that changed: the registry checks its steps' `tool_inputs` overrides
   * against the agents' tools and their scripts' inputs as they are now. Recorded and announced as
   * an agent's tools are; the flow keeps its version either way.
   */
  private async checkFlowToolInputs(job: LockJob, owner: OwnerKey): Promise<ByPathCheck> {
    const reply = await this.registry.revalidateFlowToolInputs({
      workspace: owner.workspace,
      path: owner.path,
    });
    if (reply.steps.length === 0) return {};
    const because = job.becauseOf ?? job.cascadeRoot ?? '';
    return { outcome: (await this.recordChecks(owner, because, reply.steps)) ? 'mismatch' : 'ok' };
  }

  /** Records each node's check on the owner and announces each misfit; answers whether there was one. */
  private async recordChecks(
    owner: OwnerKey,
    because: string,
    nodes: ReadonlyArray<{ node_id: string; problems: string[] }>,
  ): Promise<boolean> {
    const at = new Date().toISOString();
    let mismatched = false;
    for (const node of nodes) {
      const error = node.problems.length > 0 ? node.problems.join('; ') : null;
      await this.revalidations.save(owner, {
        nodeId: node.node_id,
        becauseOf: because,
        status: error ? 'mismatch' : 'ok',
        errorLog: error,
      });
      if (!error) continue;
      mismatched = true;
      await this.events.publish(LOCK_EVENTS.toolMismatch, {
        workspace: owner.workspace,
        owner_kind: owner.kind,
        path: owner.path,
        node_id: node.node_id,
        because_of: because,
        error,
        at,
      });
    }
    return mismatched;
  }

  /**
   * The locks of a skipped re-lock, with the scripts they import named at the versions deployed
   * now: their packages are as they were, their code is not (a worker runs the version a lock
   * names). Nothing is resolved; locks already naming those versions are left alone.
   */
  private async repin(owner: OwnerKey, units: readonly LockRecord[]): Promise<void> {
    const repinned: Array<{ unit: LockRecord; lock: string }> = [];
    for (const unit of units) {
      const named = lockedScriptsOf(unit.lock);
      const npm = parseNpmLockText(unit.lock);
      const python = npm ? undefined : parsePythonLockText(unit.lock);
      if ((!npm && !python) || Object.keys(named).length === 0) continue;
      const current: Record<string, string> = {};
      for (const [path, version] of Object.entries(named))
        current[path] = (await this.records.script(owner.workspace, path))?.ownerVersion ?? version;
      if (Object.entries(named).every(([path, version]) => current[path] === version)) continue;
      repinned.push({
        unit,
        lock: npm ? npmLockText(npm, current) : pythonLockText({ ...python!, scripts: current }),
      });
    }
    if (repinned.length === 0) return;
    const written = await this.writeBack(owner, repinned);
    for (const { unit, lock } of repinned)
      if (written.has(unit.nodeId)) await this.records.saveLock(owner, unit, lock);
  }

  /** Writes the new locks into the owner, grouped by the version they were made for. */
  private async writeBack(
    owner: OwnerKey,
    locked: ReadonlyArray<{ unit: LockRecord; lock: string }>,
  ): Promise<Set<string>> {
    const written = new Set<string>();
    const byVersion = new Map<string, Array<{ unit: LockRecord; lock: string }>>();
    for (const entry of locked) {
      let list = byVersion.get(entry.unit.ownerVersion);
      if (!list) byVersion.set(entry.unit.ownerVersion, (list = []));
      list.push(entry);
    }
    for (const [version, entries] of byVersion)
      for (const chunk of underMessageSize(entries)) {
        const reply = await this.registry.writeLocks({
          workspace: owner.workspace,
          owner_kind: owner.kind,
          path: owner.path,
          version,
          locks: chunk.map((e) => ({ node_id: e.unit.nodeId, code_sha256: e.unit.codeSha256, lock: e.lock })),
        });
        for (const id of reply.written) written.add(id);
      }
    return written;
  }

  private async failed(job: LockJob, owner: OwnerKey, unit: LockRecord, error: unknown): Promise<void> {
    const message = error instanceof MeshError || error instanceof Error ? error.message : String(error);
    if (!(error instanceof MeshError))
      this.log.warn(`locking ${owner.kind} ${owner.path} failed: ${message}`);
    await this.records.saveFailure(owner, unit, message);
    await this.events.publish(LOCK_EVENTS.failed, {
      workspace: owner.workspace,
      owner_kind: owner.kind,
      path: owner.path,
      version: unit.ownerVersion,
      cause: job.cause,
      node_id: unit.nodeId,
      error: message.slice(0, 4_000),
      at: new Date().toISOString(),
    });
  }

  private async cascade(job: LockJob, owner: OwnerKey): Promise<void> {
    const root = job.cascadeRoot ?? ownerKey(owner.kind, owner.path);
    const visited = new Set([...job.alreadyVisited, root, ownerKey(owner.kind, owner.path)]);
    // Depths continue the cascade's: what this job reaches runs after it.
    const targets = planCascade(owner, await this.edges.ofWorkspace(owner.workspace), visited).map((t) => ({
      ...t,
      depth: t.depth + job.depth,
    }));
    if (targets.length === 0) return;
    await this.jobs.enqueueCascade(owner.workspace, root, targets, [...visited], this.settings.debounceMs);
    await this.events.publish(LOCK_EVENTS.cascadePlanned, {
      workspace: owner.workspace,
      root,
      targets: targets.map((t) => ({
        owner_kind: t.kind,
        path: t.path,
        action: t.action,
        node_ids: t.nodeIds,
        depth: t.depth,
      })),
      at: new Date().toISOString(),
    });
  }
}

/** A request stays under NATS' default `max_payload` (1 MiB): a flow's many locks go in several. */
const MAX_REQUEST_CHARS = 700 * 1024;

function underMessageSize<T extends { lock: string }>(entries: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let size = Infinity;
  for (const entry of entries) {
    if (size + entry.lock.length > MAX_REQUEST_CHARS) {
      chunks.push([]);
      size = 0;
    }
    chunks.at(-1)!.push(entry);
    size += entry.lock.length;
  }
  return chunks;
}

/** One hash for all of an owner's locks (node id and lock hash, in node order). */
function combinedSha(units: readonly LockRecord[]): string {
  return sha256(units.map((u) => `${u.nodeId}\u0000${u.lockSha256 ?? ''}`).join('\n'));
}
