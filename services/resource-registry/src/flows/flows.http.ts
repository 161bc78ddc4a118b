import { ItemPathSchema } from '@flowmesh/contracts';
import { z } from 'zod';

/** HTTP bodies of `/api/w/:workspace/flows/...`, shaped as Windmill's `OpenFlowWPath`. */
const flowBody = {
  summary: z.string().max(1_000).default(''),
  description: z.string().max(10_000).nullish(),
  value: z.record(z.string(), z.unknown()),
  schema: z.record(z.string(), z.unknown()).nullish(),
};

// Windmill clients send more (tag, ws_error_handler_muted, ...); what the registry does not keep is ignored.
export const CreateFlowBodySchema = z.object({ path: ItemPathSchema, ...flowBody }).strip();

/** `path` renames. */
export const UpdateFlowBodySchema = z.object({ path: ItemPathSchema.optional(), ...flowBody }).strip();

export const ListFlowsQuerySchema = z.object({ path_start: z.string().max(255).optional() });

export const FlowVersionParamSchema = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, 'must be a version id')
  .transform(Number);
