import { MeshError, type Actor } from '@flowmesh/contracts';
import { Injectable, Logger } from '@nestjs/common';
import { FlowAccess } from '../access/flow-access.service.js';
import { resolveMemoryKey } from './memory-key.util.js';
import { MemoryRepository } from './memory.repository.js';
import { MemoryStore } from './memory.store.js';

export interface DeleteMemoryCommand {
  readonly actor: Actor;
  readonly workspace: string;
  readonly memoryId: string;
  readonly stepId?: string;
}

/**
 * Deletes a memory (every step's, or one step's): the only way besides overwriting and deleting
 * its conversation that a memory goes away. Needs write access to the flow of every row deleted.
 */
@Injectable()
export class DeleteMemoryUseCase {
  private readonly log = new Logger('DeleteMemory');

  constructor(
    private readonly access: FlowAccess,
    private readonly rows: MemoryRepository,
    private readonly store: MemoryStore,
  ) {}

  /** By key, as a run names its memory. */
  deleteByKey(command: Omit<DeleteMemoryCommand, 'memoryId'> & { flowPath: string; memoryKey: string }) {
    const { memoryId } = resolveMemoryKey(command.workspace, command.flowPath, command.memoryKey);
    return this.delete({ ...command, memoryId });
  }

  async delete(command: DeleteMemoryCommand): Promise<{ memoryId: string; deleted: number }> {
    const { actor, workspace, memoryId, stepId } = command;
    const steps = (await this.rows.findSteps(workspace, memoryId)).filter(
      (row) => stepId === undefined || row.stepId === stepId,
    );
    if (steps.length === 0) {
      await this.access.authenticate(actor, workspace);
      throw new MeshError(
        'NOT_FOUND',
        `no memory ${memoryId}${stepId ? ` step ${stepId}` : ''} in workspace ${workspace}`,
        {
          memoryId,
          stepId,
        },
      );
    }
    for (const flowPath of new Set(steps.map((row) => row.flowPath))) {
      await this.access.assertAllowed(actor, workspace, flowPath, 'write');
    }
    const deleted = await this.rows.delete(workspace, memoryId, stepId);
    const failure = await this.store.removeObjects(workspace, deleted);
    if (failure) this.log.warn(`memory ${memoryId}: rows deleted, objects left behind: ${failure.message}`);
    return { memoryId, deleted: deleted.length };
  }
}
