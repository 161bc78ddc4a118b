import { z } from 'zod';
import { ItemPathSchema } from './access-path.js';
import { itemRequestFields } from './resource.schema.js';

/**
 * The history of a resource: every write appends a version (except for the types `state` and
 * `cache`, which the platform rewrites on every job). A version holds the value as written, so a
 * `$var:`/`$res:` reference stays a reference and a secret never lands in the history.
 */

/** Versions kept per resource; a write beyond it drops the oldest in the same transaction. */
export const RESOURCE_VERSIONS_KEPT = 100;

/** Resource types whose writes are not versioned. */
export const UNVERSIONED_RESOURCE_TYPES: readonly string[] = ['state', 'cache'];

export const VersionNumberSchema = z.number().int().min(1, 'must be a version number (1 or more)');

export const ResourceVersionSummarySchema = z.object({
  version: z.number().int(),
  path: z.string(),
  resource_type: z.string(),
  description: z.string().nullable(),
  /** User name of the identity that wrote it. */
  created_by: z.string(),
  created_at: z.string(),
  /** Set when this version was written by a restore: the version it copied. */
  restored_from: z.number().int().nullable(),
});
export type ResourceVersionSummary = z.infer<typeof ResourceVersionSummarySchema>;

export const ResourceVersionSchema = ResourceVersionSummarySchema.extend({ value: z.unknown() });
export type ResourceVersion = z.infer<typeof ResourceVersionSchema>;

export const ListResourceVersionsRequestSchema = z
  .object({ ...itemRequestFields, path: ItemPathSchema })
  .strict();
/** Newest first. */
export const ListResourceVersionsReplySchema = z.object({ versions: z.array(ResourceVersionSummarySchema) });

export const GetResourceVersionRequestSchema = z
  .object({ ...itemRequestFields, path: ItemPathSchema, version: VersionNumberSchema })
  .strict();

export const DiffResourceVersionsRequestSchema = z
  .object({ ...itemRequestFields, path: ItemPathSchema, from: VersionNumberSchema, to: VersionNumberSchema })
  .strict();

/** One difference between two JSON documents, at a path like `value.tools[1].summary`. */
export const JsonChangeSchema = z.object({
  op: z.enum(['added', 'removed', 'changed']),
  path: z.string(),
  /** Absent for `added`. */
  from: z.unknown().optional(),
  /** Absent for `removed`. */
  to: z.unknown().optional(),
});
export type JsonChange = z.infer<typeof JsonChangeSchema>;

/** Changes from version `from` to version `to` of `{ resource_type, description, value }`. */
export const ResourceVersionDiffSchema = z.object({
  path: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  changes: z.array(JsonChangeSchema),
});
export type ResourceVersionDiff = z.infer<typeof ResourceVersionDiffSchema>;

export const RestoreResourceVersionRequestSchema = z
  .object({ ...itemRequestFields, path: ItemPathSchema, version: VersionNumberSchema })
  .strict();
/** The new version the restore wrote, carrying the old one's value. */
export const RestoreResourceVersionReplySchema = ResourceVersionSummarySchema;

export const ClearResourceVersionsRequestSchema = z
  .object({ ...itemRequestFields, path: ItemPathSchema })
  .strict();
export const ClearResourceVersionsReplySchema = z.object({
  /** Versions dropped. */
  removed: z.number().int(),
  /** The one version left: the current value (null when the resource type is not versioned). */
  kept: z.number().int().nullable(),
});
