import { MeshError } from '@flowmesh/contracts';

/** A uuid key reused in another flow: the memory stays with the flow that saved it first. */
export function memoryOfAnotherFlow(memoryId: string, stepId: string): MeshError {
  return new MeshError(
    'CONFLICT',
    `memory ${memoryId} step ${stepId} belongs to another flow: use a memory key of this flow`,
    { memoryId, stepId },
  );
}
