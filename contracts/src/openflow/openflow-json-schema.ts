import { z } from 'zod';
import { FlowStatusSchema } from './flow-status.schema.js';
import { OpenFlowSchema } from './flow-value.schema.js';
import { openFlowRegistry } from './openflow.registry.js';

export type JsonSchema = Record<string, unknown>;

function toJsonSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    metadata: openFlowRegistry,
    io: 'input',
    override: ({ jsonSchema }) => {
      // zod bounds every integer to the safe range; the spec states no such bound.
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  });
}

/**
 * The JSON Schema (draft 2020-12) of an OpenFlow document, generated from the zod model, for
 * clients in other languages. Every named part of the spec is a `$defs` entry.
 */
export function openFlowJsonSchema(): JsonSchema {
  return toJsonSchema(OpenFlowSchema);
}

/** The JSON Schema of a flow's run state (`FlowStatus`). */
export function flowStatusJsonSchema(): JsonSchema {
  return toJsonSchema(FlowStatusSchema);
}
