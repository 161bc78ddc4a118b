import { MeshError } from '@flowmesh/contracts';

/** A uuid key reused in another flow: the memory stays with the flow that saved it first. */
export function memoryOfAnotherFlow(memoryId: string, stepId: string): MeshError {
  return new MeshError(
    'CONFLICT',
    `memory ${memoryId} step ${stepId} belongs to another flow: use a memory key of this flow`,
    { memoryId, stepId },
  );
}

/** A save by a step whose ticket for the memory is gone (`SaveMemoryRequest.heldBy`). */
export function memoryNoLongerHeld(memoryId: string, stepId: string, jobId: string): MeshError {
  return new MeshError(
    'CONFLICT',
    `memory ${memoryId} step ${stepId} is no longer held by job ${jobId}: its lease ran out and another run took the memory`,
    { memoryId, stepId, jobId },
  );
}
