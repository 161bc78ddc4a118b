import { z } from 'zod';
import { WorkspaceIdSchema } from '../registry/access-path.js';

/**
 * What dependency-locker locks and maps. An owner is a registry item that holds code: a script,
 * a flow (its `rawscript` steps, inline agent tools included) or an `ai_agent` resource (its
 * `rawscript` tools). A unit is one piece of code of an owner, named by `node_id`: `''` for a
 * script, the module id for a flow step or an agent tool.
 */
export const LOCK_OWNER_KINDS = ['script', 'flow', 'agent'] as const;
export const LockOwnerKindSchema = z.enum(LOCK_OWNER_KINDS);
export type LockOwnerKind = z.infer<typeof LockOwnerKindSchema>;

/** Languages whose dependencies are locked; other code is mapped (its references) but not locked. */
export const LOCKABLE_LANGUAGES = ['bun', 'bunnative', 'deno', 'nativets', 'python3'] as const;
export type LockableLanguage = (typeof LOCKABLE_LANGUAGES)[number];
export function isLockableLanguage(language: string): language is LockableLanguage {
  return (LOCKABLE_LANGUAGES as readonly string[]).includes(language);
}

/**
 * Kinds of dependency edges: `relative_import` (code imports a workspace script, `/f/...`,
 * `/u/...` or `./x`), `path_tool` (an agent's tool is a script by path), `path_step` (a step or a
 * tool runs a script or a flow by path), `linked_agent` (a step or a tool links an `ai_agent`).
 */
export const EDGE_KINDS = ['relative_import', 'path_tool', 'path_step', 'linked_agent'] as const;
export const EdgeKindSchema = z.enum(EDGE_KINDS);
export type EdgeKind = z.infer<typeof EdgeKindSchema>;

export const LockUnitSchema = z.object({
  node_id: z.string().max(255),
  language: z.string().min(1).max(64),
  content: z.string(),
  /** The lock the item holds now (kept until a new one is written). */
  lock: z.string().nullable(),
});
export type LockUnit = z.infer<typeof LockUnitSchema>;

/** A reference by path found in the item itself (not in its code). */
export const LockRefSchema = z.object({
  node_id: z.string().max(255),
  edge_kind: z.enum(['path_tool', 'path_step', 'linked_agent']),
  imported_kind: LockOwnerKindSchema,
  imported_path: z.string().min(1).max(255),
});
export type LockRef = z.infer<typeof LockRefSchema>;

/**
 * An owner as deployed: everything the locker needs to lock it and map it, so it never reads the
 * registry's tables. `version` is what a lock written back is checked against: the script's hash,
 * the flow's version id; for an agent the tools' code (a tool whose code changed is not written).
 */
export const DeployedOwnerSchema = z.object({
  workspace: WorkspaceIdSchema,
  owner_kind: LockOwnerKindSchema,
  path: z.string().min(1).max(255),
  version: z.string().min(1).max(128),
  /** Set when the deploy renamed the item: its path before. */
  previous_path: z.string().optional(),
  units: z.array(LockUnitSchema).max(1_000),
  refs: z.array(LockRefSchema).max(1_000),
  by: z.string(),
  at: z.string(),
});
export type DeployedOwner = z.infer<typeof DeployedOwnerSchema>;

export const DeletedOwnerSchema = z.object({
  workspace: WorkspaceIdSchema,
  owner_kind: LockOwnerKindSchema,
  path: z.string().min(1).max(255),
  by: z.string(),
  at: z.string(),
});
export type DeletedOwner = z.infer<typeof DeletedOwnerSchema>;

/** SHA-256 (hex) of a unit's code, the check a lock written back must pass. */
export const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha-256 in hex');
