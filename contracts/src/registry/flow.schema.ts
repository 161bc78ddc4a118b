import { z } from 'zod';
import { ItemPathSchema } from './access-path.js';
import { itemRequestFields } from './resource.schema.js';

/**
 * Flows over NATS. The value is an OpenFlow FlowValue, checked with `parseOpenFlow` on every
 * write (every problem is returned with its path, e.g. `value.modules[0].id`); each write
 * appends a version. Modules may name scripts by path, or by path and hash to pin a version.
 */
const flowBody = {
  summary: z.string().max(1_000).default(''),
  description: z.string().max(10_000).nullish(),
  /** The FlowValue (`{modules, ...}`), validated by the registry against the OpenFlow model. */
  value: z.record(z.string(), z.unknown()),
  /** JSON Schema of the flow's inputs. */
  schema: z.record(z.string(), z.unknown()).nullish(),
};

export const FlowSchema = z.object({
  workspace_id: z.string(),
  path: z.string(),
  summary: z.string(),
  description: z.string().nullable(),
  value: z.record(z.string(), z.unknown()),
  schema: z.record(z.string(), z.unknown()).nullable(),
  /** The id of the version this value is. */
  version_id: z.number().int(),
  created_by: z.string(),
  created_at: z.string(),
  edited_by: z.string(),
  edited_at: z.string(),
});
export type Flow = z.infer<typeof FlowSchema>;

export const ListedFlowSchema = FlowSchema.omit({ value: true, schema: true });

export const FlowVersionSchema = z.object({
  id: z.number().int(),
  created_by: z.string(),
  created_at: z.string(),
});

export const CreateFlowRequestSchema = z
  .object({ ...itemRequestFields, path: ItemPathSchema, ...flowBody })
  .strict();
export const UpdateFlowRequestSchema = z
  .object({ ...itemRequestFields, path: ItemPathSchema, new_path: ItemPathSchema.optional(), ...flowBody })
  .strict();
export const GetFlowRequestSchema = z
  .object({
    ...itemRequestFields,
    path: ItemPathSchema,
    /** A past version of this path; absent: the current one. */
    version: z.number().int().positive().optional(),
  })
  .strict();
export const FlowPathRequestSchema = z.object({ ...itemRequestFields, path: ItemPathSchema }).strict();
export const ListFlowsRequestSchema = z
  .object({ ...itemRequestFields, path_prefix: z.string().max(255).optional() })
  .strict();
export const ListFlowsReplySchema = z.object({ flows: z.array(ListedFlowSchema) });
export const ListFlowVersionsReplySchema = z.object({ versions: z.array(FlowVersionSchema) });
