import { z } from 'zod';
import { ItemPathSchema } from './access-path.js';
import { itemRequestFields } from './resource.schema.js';

/**
 * Variables over NATS: plain or secret. A secret's value is encrypted at rest and leaves the
 * registry only in a `get`/`get_value` reply to a caller allowed to read it; lists never carry
 * values of secrets.
 */
const description = z.string().max(10_000);

export const VariableSchema = z.object({
  workspace_id: z.string(),
  path: z.string(),
  /** Absent for a secret in a list, or when the caller asked for it without decryption. */
  value: z.string().optional(),
  is_secret: z.boolean(),
  description: z.string().nullable(),
  created_by: z.string(),
  created_at: z.string(),
  edited_by: z.string(),
  edited_at: z.string(),
});
export type Variable = z.infer<typeof VariableSchema>;

export const GetVariableRequestSchema = z
  .object({
    ...itemRequestFields,
    path: ItemPathSchema,
    /** Include a secret's decrypted value (default true, as Windmill's `decrypt_secret`). */
    decrypt_secret: z.boolean().optional(),
  })
  .strict();

export const VariablePathRequestSchema = z.object({ ...itemRequestFields, path: ItemPathSchema }).strict();

export const CreateVariableRequestSchema = z
  .object({
    ...itemRequestFields,
    path: ItemPathSchema,
    value: z.string(),
    is_secret: z.boolean().default(false),
    description: description.nullish(),
  })
  .strict();

/** Changes what is given; `new_path` renames. Turning a secret into a plain variable is refused. */
export const UpdateVariableRequestSchema = z
  .object({
    ...itemRequestFields,
    path: ItemPathSchema,
    new_path: ItemPathSchema.optional(),
    value: z.string().optional(),
    is_secret: z.boolean().optional(),
    description: description.nullish(),
  })
  .strict();

export const ListVariablesRequestSchema = z
  .object({ ...itemRequestFields, path_prefix: z.string().max(255).optional() })
  .strict();
export const ListVariablesReplySchema = z.object({ variables: z.array(VariableSchema) });
export const VariableValueReplySchema = z.object({ value: z.string() });
