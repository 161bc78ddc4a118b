import { MeshError, parseOpenFlow } from '@flowmesh/contracts';
import type { FlowDefinition } from './flow.repository.js';

/**
 * A flow's definition checked with the contracts' OpenFlow model (schema and semantic rules):
 * VALIDATION_FAILED listing every problem with its path (`value.modules[1].id: ...`).
 */
export function assertValidFlow(path: string, flow: FlowDefinition): void {
  const document = {
    summary: flow.summary,
    ...(flow.description === null ? {} : { description: flow.description }),
    value: flow.value,
    ...(flow.schema === null ? {} : { schema: flow.schema }),
  };
  const result = parseOpenFlow(document);
  if (result.ok) return;
  const [first] = result.errors;
  const more = result.errors.length > 1 ? ` (and ${result.errors.length - 1} more)` : '';
  throw new MeshError('VALIDATION_FAILED', `invalid flow ${path}: ${first?.path}: ${first?.message}${more}`, {
    issues: result.errors,
  });
}
