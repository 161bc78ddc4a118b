import { ItemPathSchema } from '@flowmesh/contracts';
import { z } from 'zod';

/** HTTP bodies of `/api/w/:workspace/variables/...`, shaped as Windmill's. */
const description = z.string().max(10_000).nullish();

export const CreateVariableBodySchema = z
  .object({ path: ItemPathSchema, value: z.string(), is_secret: z.boolean().default(false), description })
  .strict();

/** `path` renames. */
export const UpdateVariableBodySchema = z
  .object({
    path: ItemPathSchema.optional(),
    value: z.string().optional(),
    is_secret: z.boolean().optional(),
    description,
  })
  .strict();

const flag = z.enum(['true', 'false']).transform((text) => text === 'true');

export const GetVariableQuerySchema = z.object({ decrypt_secret: flag.optional() });
export const ListVariablesQuerySchema = z.object({ path_start: z.string().max(255).optional() });
