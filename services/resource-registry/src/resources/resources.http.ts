import { ItemPathSchema, JsonValueSchema, ResourceTypeNameSchema } from '@flowmesh/contracts';
import { z } from 'zod';

/** HTTP bodies of `/api/w/:workspace/resources/...`, shaped as Windmill's. */
const description = z.string().max(10_000).nullish();

export const CreateResourceBodySchema = z
  .object({
    path: ItemPathSchema,
    resource_type: ResourceTypeNameSchema,
    value: JsonValueSchema,
    description,
  })
  .strict();

/** `path` renames; Windmill clients send the resource type along, which cannot change. */
export const UpdateResourceBodySchema = z
  .object({
    path: ItemPathSchema.optional(),
    value: JsonValueSchema.optional(),
    description,
    resource_type: z.string().optional(),
  })
  .strict();

export const UpdateResourceValueBodySchema = z.object({ value: JsonValueSchema }).strict();

export const ListResourcesQuerySchema = z.object({
  resource_type: z
    .string()
    .max(2_000)
    .transform((text) =>
      text
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    )
    .pipe(z.array(ResourceTypeNameSchema))
    .optional(),
  path_start: z.string().max(255).optional(),
});
