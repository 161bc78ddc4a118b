import { z } from 'zod';
import { ItemPathSchema, UsernameSchema } from './access-path.js';
import { itemRequestFields } from './resource.schema.js';

/**
 * Per-user drafts of an item: one per (user, kind, path), saved as often as an editor likes and
 * deployed or discarded later. A draft's value is what the item's create/update would take,
 * without the path; it may be incomplete while edited, and is validated when deployed.
 */
export const DRAFT_ITEM_KINDS = ['resource', 'script', 'flow'] as const;
export const DraftItemKindSchema = z.enum(DRAFT_ITEM_KINDS);
export type DraftItemKind = z.infer<typeof DraftItemKindSchema>;

/** Largest draft value, as JSON text. */
export const DRAFT_VALUE_MAX_BYTES = 1024 * 1024;

/**
 * - resource: `{ resource_type, value, description? }`
 * - script: `{ language, content, lock?, schema?, summary?, description? }`
 * - flow: `{ summary?, description?, value, schema? }`
 */
export const DraftValueSchema = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > DRAFT_VALUE_MAX_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `is ${bytes} bytes of JSON, more than the ${DRAFT_VALUE_MAX_BYTES} allowed`,
    });
  }
});

export const DraftSummarySchema = z.object({
  id: z.string(),
  item_kind: DraftItemKindSchema,
  path: z.string(),
  /** The user the draft belongs to. */
  username: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DraftSummary = z.infer<typeof DraftSummarySchema>;

export const DraftSchema = DraftSummarySchema.extend({ value: z.record(z.string(), z.unknown()) });
export type Draft = z.infer<typeof DraftSchema>;

export const DraftItemSchema = z.object({ item_kind: DraftItemKindSchema, path: ItemPathSchema }).strict();

export const SaveDraftRequestSchema = z
  .object({
    ...itemRequestFields,
    item_kind: DraftItemKindSchema,
    path: ItemPathSchema,
    value: DraftValueSchema,
  })
  .strict();

/** The caller's own drafts, newest first. */
export const ListDraftsRequestSchema = z
  .object({ ...itemRequestFields, item_kind: DraftItemKindSchema.optional() })
  .strict();
export const ListDraftsReplySchema = z.object({ drafts: z.array(DraftSummarySchema) });

/**
 * Which draft: by id (what a preview job carries instead of the content), or "the draft of item
 * X for user U" (U defaults to the caller).
 */
export const DraftRefSchema = z.union([
  z.object({ id: z.uuid() }).strict(),
  z
    .object({ item_kind: DraftItemKindSchema, path: ItemPathSchema, username: UsernameSchema.optional() })
    .strict(),
]);
export type DraftRef = z.infer<typeof DraftRefSchema>;

/**
 * Answered only to the draft's own user (directly or as a job running on their behalf) who can
 * still read the item's path; to anyone else the draft does not exist.
 */
export const GetDraftRequestSchema = z.object({ ...itemRequestFields, draft: DraftRefSchema }).strict();

export const DeployDraftRequestSchema = z.object({ ...itemRequestFields, ...DraftItemSchema.shape }).strict();
export const DeployDraftReplySchema = z.object({
  item_kind: DraftItemKindSchema,
  path: z.string(),
  created: z.boolean(),
  /** The resource version the deploy appended; null for scripts, flows and unversioned types. */
  version: z.number().int().nullable(),
});

export const DiscardDraftRequestSchema = DeployDraftRequestSchema;
export const DiscardDraftReplySchema = z.object({ discarded: z.literal(true) });
