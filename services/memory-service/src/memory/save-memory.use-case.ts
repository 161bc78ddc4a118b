import type { SaveMemoryReply, SaveMemoryRequestSchema } from '@flowmesh/contracts';
import { Injectable, Logger, Optional } from '@nestjs/common';
import type { z } from 'zod';
import { FlowAccess } from '../access/flow-access.service.js';
import { ObjectStorageError } from '../storage/object-storage.port.js';
import { MemoryLockRepository } from '../locks/memory-lock.repository.js';
import { resolveMemoryKey } from './memory-key.util.js';
import { serializeHistory, type SerializedHistory } from './memory-size.util.js';
import { planMemoryWrite, type MemoryWritePlan } from './memory-write.plan.js';
import { recordMemorySave } from '../telemetry/memory.metrics.js';
import { memoryNoLongerHeld } from './memory.errors.js';
import { MemoryStore } from './memory.store.js';
import type { MemoryRef } from './memory.types.js';
import { saveNotices } from './save-memory.notices.js';

type SaveMemoryCommand = z.output<typeof SaveMemoryRequestSchema>;

interface Attempt {
  readonly ref: MemoryRef;
  readonly command: SaveMemoryCommand;
  readonly serialized: SerializedHistory;
  /** Set when object storage failed and this attempt goes to the database: why it failed. */
  readonly fallbackReason?: string;
}

/**
 * Replaces a memory after the size rules (`planMemoryWrite`) decided what to write, falling back
 * to the database when object storage fails. The reply tells the caller what happened; a
 * notice for the flow log goes with anything but a plain save.
 */
@Injectable()
export class SaveMemoryUseCase {
  private readonly log = new Logger('SaveMemory');

  constructor(
    private readonly access: FlowAccess,
    private readonly store: MemoryStore,
    @Optional() private readonly locks?: MemoryLockRepository,
  ) {}

  async save(command: SaveMemoryCommand): Promise<SaveMemoryReply> {
    await this.access.assertAllowed(command.actor, command.workspace, command.flowPath, 'read');
    const { memoryId } = resolveMemoryKey(command.workspace, command.flowPath, command.memoryKey);
    const ref: MemoryRef = { workspace: command.workspace, memoryId, stepId: command.stepId };
    // A step that lost its ticket (its lease ran out, another run took the memory) would write
    // over that run's turn: it is refused instead.
    if (command.heldBy && this.locks && !(await this.locks.holds(ref, command.heldBy)))
      throw memoryNoLongerHeld(memoryId, command.stepId, command.heldBy);
    const serialized = serializeHistory(command.messages);
    try {
      return await this.attempt({ ref, command, serialized });
    } catch (error) {
      if (!(error instanceof ObjectStorageError)) throw error;
      this.log.warn(
        `memory ${memoryId} step ${command.stepId}: ${error.message}; saving to the database instead`,
      );
      return this.attempt({ ref, command, serialized, fallbackReason: error.message });
    }
  }

  private async attempt(attempt: Attempt): Promise<SaveMemoryReply> {
    const { command, serialized, fallbackReason } = attempt;
    const fallback = fallbackReason !== undefined;
    const plan = planMemoryWrite({
      messages: command.messages,
      serialized,
      limitBytes: fallback ? this.store.databaseCapacityBytes : this.store.capacityBytes,
      mode: command.mode,
      compacted: command.compacted,
      fallback,
    });
    const reply = await this.execute(attempt, plan);
    recordMemorySave(reply.status, fallback ? 'database' : this.store.kind, command.compacted === true);
    if (reply.notice) {
      this.log.log(
        `memory ${reply.memoryId} step ${command.stepId} (${command.workspace}): ${reply.status}: ${reply.notice}`,
      );
    }
    return reply;
  }

  private async execute(
    { ref, command, serialized, fallbackReason }: Attempt,
    plan: MemoryWritePlan,
  ): Promise<SaveMemoryReply> {
    const base = { memoryId: ref.memoryId, sizeBytes: serialized.bytes };
    switch (plan.kind) {
      case 'write': {
        const entry = {
          flowPath: command.flowPath,
          messageCount: plan.messageCount,
          json: plan.serialized.json,
          bytes: plan.serialized.bytes,
        };
        const fallback = fallbackReason !== undefined;
        const change = fallback
          ? await this.store.writeToDatabase(ref, entry)
          : await this.store.write(ref, entry);
        const limitBytes = fallback ? this.store.databaseCapacityBytes : this.store.capacityBytes;
        const notices = [
          fallback ? saveNotices.fellBack(fallbackReason) : undefined,
          plan.dropped && limitBytes !== null ? saveNotices.trimmed(plan.dropped, limitBytes) : undefined,
        ].filter((notice) => notice !== undefined);
        return {
          status: 'saved',
          ...base,
          limitBytes,
          version: change.version,
          replacedVersion: change.replacedVersion,
          store: fallback ? 'database' : this.store.kind,
          fellBack: fallback,
          dropped: plan.dropped,
          savedBytes: plan.serialized.bytes,
          notice: notices.length > 0 ? notices.join('; ') : null,
        };
      }
      case 'compaction_required':
        return {
          status: 'compaction_required',
          ...base,
          limitBytes: plan.limitBytes,
          notice: saveNotices.compactionRequired(serialized.bytes, plan.limitBytes),
        };
      case 'skip': {
        const currentVersion = await this.store.currentVersion(ref);
        return {
          status: 'skipped',
          ...base,
          limitBytes: plan.limitBytes,
          currentVersion,
          notice: saveNotices.skipped(plan.limitBytes, currentVersion),
        };
      }
      case 'refuse':
        return {
          status: 'failed',
          ...base,
          limitBytes: plan.limitBytes,
          currentVersion: await this.store.currentVersion(ref),
          notice: saveNotices.refused(serialized.bytes, plan.limitBytes, fallbackReason ?? 'unknown'),
        };
    }
  }
}
