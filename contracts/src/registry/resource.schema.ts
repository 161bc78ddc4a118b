import { z } from 'zod';
import { ItemPathSchema, WorkspaceIdSchema } from './access-path.js';
import { ActorSchema, CallerIdentitySchema } from './identity.schema.js';

/**
 * Resources and resource types over NATS. Items keep the field names of Windmill's REST API
 * (`resource_type`, `created_by`, ...) so the HTTP routes and NATS share one shape. Values are
 * JSON of any shape: the registry checks them against their type's JSON Schema and its size
 * limit (`FLOWMESH_REGISTRY_MAX_VALUE_BYTES`).
 */
/** Every item request names its caller and its workspace. */
export const itemRequestFields = { actor: ActorSchema, workspace: WorkspaceIdSchema };

/** Any JSON value, required (an absent key is an error, `null` is a value). */
export const JsonValueSchema = z.unknown().refine((value) => value !== undefined, { message: 'is required' });

const description = z.string().max(10_000);

/** A resource type name: lower-case letters, digits and `_` (`ai_agent`, `postgresql`, `c_my_api`). */
export const ResourceTypeNameSchema = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]{0,63}$/,
    "must be lower-case letters, digits or '_', starting with a letter (at most 64)",
  );

export const ResourceSchema = z.object({
  workspace_id: z.string(),
  path: z.string(),
  resource_type: z.string(),
  value: z.unknown(),
  description: z.string().nullable(),
  created_by: z.string(),
  created_at: z.string(),
  edited_by: z.string(),
  edited_at: z.string(),
});
export type Resource = z.infer<typeof ResourceSchema>;

/** A resource in a list: everything but the value, which may be large or hold credentials. */
export const ListedResourceSchema = ResourceSchema.omit({ value: true });
export type ListedResource = z.infer<typeof ListedResourceSchema>;

export const ResourcePathRequestSchema = z.object({ ...itemRequestFields, path: ItemPathSchema }).strict();

export const CreateResourceRequestSchema = z
  .object({
    ...itemRequestFields,
    path: ItemPathSchema,
    resource_type: ResourceTypeNameSchema,
    value: JsonValueSchema,
    description: description.nullish(),
  })
  .strict();

/** Changes what is given: a new `new_path` renames (write access to both paths needed). */
export const UpdateResourceRequestSchema = z
  .object({
    ...itemRequestFields,
    path: ItemPathSchema,
    new_path: ItemPathSchema.optional(),
    value: JsonValueSchema.optional(),
    description: description.nullish(),
  })
  .strict();

export const UpdateResourceValueRequestSchema = z
  .object({ ...itemRequestFields, path: ItemPathSchema, value: JsonValueSchema })
  .strict();

export const ListResourcesRequestSchema = z
  .object({
    ...itemRequestFields,
    /** Only these types. */
    resource_types: z.array(ResourceTypeNameSchema).max(100).optional(),
    /** Only paths starting with this. */
    path_prefix: z.string().max(255).optional(),
  })
  .strict();
export const ListResourcesReplySchema = z.object({ resources: z.array(ListedResourceSchema) });

export const ResourceValueReplySchema = z.object({ value: z.unknown() });
/**
 * `registry.resource.resolve`: what a caller needs to use a resource, in one round trip: who its
 * token says it is (`tokenExpiresAt` included: a decision made from it is kept no longer), the
 * resource's type, and its value interpolated as that caller.
 */
export const ResolvedResourceReplySchema = z.object({
  identity: CallerIdentitySchema,
  resource_type: z.string(),
  value: z.unknown(),
});
export type ResolvedResourceReply = z.infer<typeof ResolvedResourceReplySchema>;
export const ItemExistsReplySchema = z.object({ exists: z.boolean() });
export const ItemDeletedReplySchema = z.object({ deleted: z.literal(true) });

export const ResourceTypeSchema = z.object({
  workspace_id: z.string(),
  name: z.string(),
  /** JSON Schema of the values of this type. */
  schema: z.record(z.string(), z.unknown()),
  description: z.string().nullable(),
  /** Built in: created in every workspace at start-up, not editable. */
  builtin: z.boolean(),
  created_by: z.string(),
  created_at: z.string(),
  edited_at: z.string(),
});
export type ResourceType = z.infer<typeof ResourceTypeSchema>;

export const ResourceTypeNameRequestSchema = z
  .object({ ...itemRequestFields, name: ResourceTypeNameSchema })
  .strict();
export const CreateResourceTypeRequestSchema = z
  .object({
    ...itemRequestFields,
    name: ResourceTypeNameSchema,
    schema: z.record(z.string(), z.unknown()),
    description: description.nullish(),
  })
  .strict();
export const UpdateResourceTypeRequestSchema = z
  .object({
    ...itemRequestFields,
    name: ResourceTypeNameSchema,
    schema: z.record(z.string(), z.unknown()).optional(),
    description: description.nullish(),
  })
  .strict();
export const ListResourceTypesRequestSchema = z.object(itemRequestFields).strict();
export const ListResourceTypesReplySchema = z.object({ resource_types: z.array(ResourceTypeSchema) });
