import { z } from 'zod';
import { ItemPathSchema, WorkspaceIdSchema } from './access-path.js';
import { ActorSchema } from './identity.schema.js';
import { itemRequestFields } from './resource.schema.js';

/**
 * Deploy to another workspace: the requested items plus everything they need. A flow needs its
 * scripts (by path or path+hash), subflows and linked `ai_agent` resources; an agent its provider
 * resource, its tools' scripts and flows, MCP resources and nested agents; a resource the
 * resources it references with `$res:`. Variables are never copied (a secret does not travel as
 * a side effect): those referenced with `$var:` are listed, and must exist in the target.
 */
export const DEPLOY_ITEM_KINDS = ['resource', 'script', 'flow'] as const;
export const DeployItemKindSchema = z.enum(DEPLOY_ITEM_KINDS);
export type DeployItemKind = z.infer<typeof DeployItemKindSchema>;

/** Items one deploy may write, dependencies included. */
export const DEPLOY_MAX_ITEMS = 200;

export const DeployItemRefSchema = z.object({ kind: DeployItemKindSchema, path: ItemPathSchema }).strict();
export type DeployItemRef = z.infer<typeof DeployItemRefSchema>;

/** What to deploy where (the HTTP body of `deploy/plan` and `deploy/apply`). */
export const DeployOrderSchema = z
  .object({
    target_workspace: WorkspaceIdSchema,
    items: z.array(DeployItemRefSchema).min(1, 'must name at least one item').max(DEPLOY_MAX_ITEMS),
    /** Replace target items that exist and differ; without it such a deploy is refused. */
    overwrite: z.boolean().default(false),
    /**
     * Who the caller is in the target workspace: a token valid there (an API token works only in
     * the workspace it was made in). Absent: the caller's own token, which must then be valid in
     * both (the first admin's is).
     */
    target_actor: ActorSchema.optional(),
  })
  .strict();
export type DeployOrder = z.output<typeof DeployOrderSchema>;

/** `workspace` is the source. */
export const DeployRequestSchema = z
  .object({ ...itemRequestFields, ...DeployOrderSchema.shape })
  .strict()
  .refine((value) => value.workspace !== value.target_workspace, {
    message: 'must differ from the source workspace',
    path: ['target_workspace'],
  });
export type DeployRequest = z.input<typeof DeployRequestSchema>;

/**
 * - `create`: absent in the target, will be written.
 * - `update`: present and different, will be overwritten (`overwrite: true`).
 * - `unchanged`: present and identical, nothing to write.
 * - `conflict`: present and different, and `overwrite` is off: the deploy is refused.
 */
export const DeployActionSchema = z.enum(['create', 'update', 'unchanged', 'conflict']);
export type DeployAction = z.infer<typeof DeployActionSchema>;

export const DeployPlanEntrySchema = z.object({
  kind: DeployItemKindSchema,
  path: z.string(),
  action: DeployActionSchema,
  /** Asked for, rather than (only) needed by another item. */
  requested: z.boolean(),
  /** The items that need it, as `flow:f/x/y` (`script:f/x/y@<hash>` for a pinned script). */
  required_by: z.array(z.string()),
  /** For a script pinned by hash somewhere: the hash in the source. */
  hash: z.string().optional(),
});
export type DeployPlanEntry = z.infer<typeof DeployPlanEntrySchema>;

export const DeployVariableRefSchema = z.object({
  path: z.string(),
  exists_in_target: z.boolean(),
  required_by: z.array(z.string()),
});

export const DeployPlanSchema = z.object({
  source_workspace: z.string(),
  target_workspace: z.string(),
  /** Dependencies before the items that need them: the order the apply writes in. */
  entries: z.array(DeployPlanEntrySchema),
  variables: z.array(DeployVariableRefSchema),
  /** Whether `deploy.apply` with the same request would write (no conflict, no missing variable). */
  ready: z.boolean(),
});
export type DeployPlan = z.infer<typeof DeployPlanSchema>;

export const DeployResultSchema = z.object({
  source_workspace: z.string(),
  target_workspace: z.string(),
  /** Every entry of the plan, as written (`create`/`update`) or left (`unchanged`). */
  entries: z.array(DeployPlanEntrySchema),
  written: z.number().int(),
});
export type DeployResult = z.infer<typeof DeployResultSchema>;
