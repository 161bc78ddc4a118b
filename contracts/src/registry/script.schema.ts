import { z } from 'zod';
import { RAW_SCRIPT_LANGUAGES } from '../openflow/script-modules.schema.js';
import { ItemPathSchema } from './access-path.js';
import { itemRequestFields } from './resource.schema.js';

/**
 * Scripts over NATS. A script is a path with a chain of immutable versions; each version is
 * named by its hash, the SHA-256 of what it runs (path, language, content, lock and the schema
 * of `main`'s arguments), so `get_by_hash` always returns the same code. Summary and
 * description are labels of the path, not of a version.
 */
export const ScriptLanguageSchema = z.enum(RAW_SCRIPT_LANGUAGES);
export type ScriptLanguage = z.infer<typeof ScriptLanguageSchema>;

/** A script hash: 64 lower-case hex digits. */
export const ScriptHashSchema = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits');

export const ScriptSchema = z.object({
  workspace_id: z.string(),
  path: z.string(),
  hash: z.string(),
  /** The version this one replaced; null for the first. */
  parent_hash: z.string().nullable(),
  language: ScriptLanguageSchema,
  content: z.string(),
  lock: z.string().nullable(),
  /** JSON Schema of `main`'s arguments. */
  schema: z.record(z.string(), z.unknown()).nullable(),
  summary: z.string(),
  description: z.string().nullable(),
  /** True when this version is the path's current one. */
  is_current: z.boolean(),
  created_by: z.string(),
  created_at: z.string(),
});
export type Script = z.infer<typeof ScriptSchema>;

export const ListedScriptSchema = ScriptSchema.omit({ content: true, lock: true, schema: true });

export const ScriptVersionSchema = z.object({
  hash: z.string(),
  parent_hash: z.string().nullable(),
  created_by: z.string(),
  created_at: z.string(),
});

const scriptBody = {
  language: ScriptLanguageSchema,
  content: z.string(),
  lock: z.string().nullish(),
  schema: z.record(z.string(), z.unknown()).nullish(),
  summary: z.string().max(1_000).default(''),
  description: z.string().max(10_000).nullish(),
};

/** Creates the path's first version. */
export const CreateScriptRequestSchema = z
  .object({ ...itemRequestFields, path: ItemPathSchema, ...scriptBody })
  .strict();

/**
 * Saves a new version of an existing path. `parent_hash`, when given, must be the current
 * version (an editor that loaded an older one gets a CONFLICT instead of overwriting).
 */
export const UpdateScriptRequestSchema = z
  .object({
    ...itemRequestFields,
    path: ItemPathSchema,
    parent_hash: ScriptHashSchema.optional(),
    ...scriptBody,
  })
  .strict();

export const GetScriptRequestSchema = z
  .object({
    ...itemRequestFields,
    path: ItemPathSchema,
    /** A version of this path; absent: the current one. */
    hash: ScriptHashSchema.optional(),
  })
  .strict();
export const GetScriptByHashRequestSchema = z
  .object({ ...itemRequestFields, hash: ScriptHashSchema })
  .strict();
export const ScriptPathRequestSchema = z.object({ ...itemRequestFields, path: ItemPathSchema }).strict();
export const ListScriptsRequestSchema = z
  .object({ ...itemRequestFields, path_prefix: z.string().max(255).optional() })
  .strict();
export const ListScriptsReplySchema = z.object({ scripts: z.array(ListedScriptSchema) });
export const ListScriptVersionsReplySchema = z.object({ versions: z.array(ScriptVersionSchema) });
export const SavedScriptReplySchema = z.object({
  path: z.string(),
  hash: z.string(),
  /** False when the content hashed to the current version: nothing new was written. */
  created: z.boolean(),
});
