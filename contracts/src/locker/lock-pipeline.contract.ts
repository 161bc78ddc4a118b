import { z } from 'zod';
import {
  createContractClient,
  defineEvent,
  defineRequest,
  type RequestTransport,
} from '../messaging/contract.js';
import { WorkspaceIdSchema } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';
import {
  DeletedOwnerSchema,
  DeployedOwnerSchema,
  EdgeKindSchema,
  LockOwnerKindSchema,
  Sha256Schema,
} from './lockable.schema.js';

/**
 * The lock pipeline between resource-registry and dependency-locker.
 *
 * 1. The registry records `evt.deploy.saved` in its outbox, in the transaction of every deploy of
 *    a script, a flow or an `ai_agent` resource (`evt.deploy.deleted` on delete).
 * 2. The locker locks the owner's units, rewrites the owner's edges in the dependency map, and
 *    writes the locks back with `registry.lock.write`: the registry owns the items, the locker
 *    never touches their tables. A lock is written only onto the version it was made for.
 * 3. The locker plans the cascade over the map and re-locks (or revalidates) the dependents,
 *    announcing each outcome as an `evt.lock.*` fact.
 */
export const DEPLOY_EVENTS = {
  saved: defineEvent('evt.deploy.saved', DeployedOwnerSchema),
  deleted: defineEvent('evt.deploy.deleted', DeletedOwnerSchema),
} as const;

const ownerFields = {
  workspace: WorkspaceIdSchema,
  owner_kind: LockOwnerKindSchema,
  path: z.string().min(1).max(255),
};

export const WriteLocksRequestSchema = z
  .object({
    ...ownerFields,
    /** The owner version the locks were made for (a script's hash, a flow's version id, `-` for an agent). */
    version: z.string().min(1).max(128),
    locks: z
      .array(
        z.object({
          node_id: z.string().max(255),
          /** SHA-256 of the code that was locked: a unit whose code changed since is not written. */
          code_sha256: Sha256Schema,
          lock: z.string().max(4_000_000),
        }),
      )
      .min(1)
      .max(1_000),
  })
  .strict();
export type WriteLocksRequest = z.infer<typeof WriteLocksRequestSchema>;
export const WriteLocksReplySchema = z.object({
  /** Node ids whose lock was written. */
  written: z.array(z.string()),
  /** Node ids not written: the owner changed (a deploy landed meanwhile) or the node is gone. */
  superseded: z.array(z.string()),
});
export type WriteLocksReply = z.infer<typeof WriteLocksReplySchema>;

/**
 * A script an agent runs as a tool by path was redeployed: the registry checks the inputs each such
 * tool binds (`input_transforms`) against the script's current input schema, and when every one
 * matches, appends a version of the agent (as Windmill bumps a flow whose dependencies changed), so
 * flows linking it see it changed.
 */
export const RevalidateAgentToolsRequestSchema = z
  .object({
    workspace: WorkspaceIdSchema,
    /** The agent (`ai_agent` resource). */
    path: z.string().min(1).max(255),
    /** The script its tools run. */
    script_path: z.string().min(1).max(255),
  })
  .strict();
export type RevalidateAgentToolsRequest = z.infer<typeof RevalidateAgentToolsRequestSchema>;
export const RevalidateAgentToolsReplySchema = z.object({
  /** Each tool of the agent running the script, with what no longer fits (empty: it matches). */
  tools: z.array(z.object({ node_id: z.string(), problems: z.array(z.string()) })),
  /** The agent's new version, when it has such tools and all of them match. */
  version: z.int().optional(),
});
export type RevalidateAgentToolsReply = z.infer<typeof RevalidateAgentToolsReplySchema>;

/**
 * A flow links an agent that changed (or whose tools' scripts did): the registry checks the
 * `tool_inputs` overrides of each of its `aiagent` steps linking an agent against the tools of the
 * agent as it is now and the current input schemas of the scripts they run by path.
 */
export const RevalidateFlowToolInputsRequestSchema = z
  .object({
    workspace: WorkspaceIdSchema,
    /** The flow (its current version). */
    path: z.string().min(1).max(255),
  })
  .strict();
export type RevalidateFlowToolInputsRequest = z.infer<typeof RevalidateFlowToolInputsRequestSchema>;
export const RevalidateFlowToolInputsReplySchema = z.object({
  /** Each step linking an agent, with the overrides that no longer fit (empty: they all do). */
  steps: z.array(z.object({ node_id: z.string(), problems: z.array(z.string()) })),
});
export type RevalidateFlowToolInputsReply = z.infer<typeof RevalidateFlowToolInputsReplySchema>;

/**
 * Every script (its current version), flow and `ai_agent` resource of a workspace announced again
 * as deployed (`evt.deploy.saved`, through the outbox): how dependency-locker learns what was
 * deployed before it ran (`locker.depmap.rebuild`, which checks the caller is an admin).
 */
export const AnnounceDeploysRequestSchema = z.object({ workspace: WorkspaceIdSchema }).strict();
export const AnnounceDeploysReplySchema = z.object({
  scripts: z.int().min(0),
  flows: z.int().min(0),
  agents: z.int().min(0),
});
export type AnnounceDeploysReply = z.infer<typeof AnnounceDeploysReplySchema>;

/** Locks written back by dependency-locker (only it calls this; it carries code hashes, not tokens). */
export const registryLocksContract = {
  writeLocks: defineRequest('registry.lock.write', WriteLocksRequestSchema, WriteLocksReplySchema),
  revalidateAgentTools: defineRequest(
    'registry.lock.revalidate_agent_tools',
    RevalidateAgentToolsRequestSchema,
    RevalidateAgentToolsReplySchema,
  ),
  revalidateFlowToolInputs: defineRequest(
    'registry.lock.revalidate_flow_tool_inputs',
    RevalidateFlowToolInputsRequestSchema,
    RevalidateFlowToolInputsReplySchema,
  ),
  announceDeploys: defineRequest(
    'registry.lock.announce_deploys',
    AnnounceDeploysRequestSchema,
    AnnounceDeploysReplySchema,
    {
      timeoutMs: 120_000,
    },
  ),
} as const;

export function createRegistryLocksClient(transport: RequestTransport) {
  return createContractClient(registryLocksContract, transport);
}
export type RegistryLocksClient = ReturnType<typeof createRegistryLocksClient>;

export const LockCauseSchema = z.enum(['deploy', 'cascade']);

export const LockCompletedEventSchema = z.object({
  ...ownerFields,
  version: z.string(),
  cause: LockCauseSchema,
  /** The root of the cascade that re-locked it (`<kind>:<path>`); absent for a deploy. */
  cascade_root: z.string().optional(),
  node_ids: z.array(z.string()),
  /** SHA-256 of the owner's locks together (a script: of its lock). */
  lock_sha256: Sha256Schema,
  /** False when the new locks equal the previous ones. */
  changed: z.boolean(),
  at: z.string(),
});
export type LockCompletedEvent = z.infer<typeof LockCompletedEventSchema>;

export const LockFailedEventSchema = z.object({
  ...ownerFields,
  version: z.string(),
  cause: LockCauseSchema,
  node_id: z.string(),
  /** What the resolver said (first lines); the previous lock is kept. */
  error: z.string(),
  at: z.string(),
});
export type LockFailedEvent = z.infer<typeof LockFailedEventSchema>;

/** A cascade re-lock or revalidation that a user deploy of the same owner made pointless. */
export const LockSupersededEventSchema = z.object({
  ...ownerFields,
  version: z.string(),
  node_ids: z.array(z.string()),
  at: z.string(),
});

/** A dependent that needs no new lock was checked again: what it runs by path changed. */
export const DependentRevalidatedEventSchema = z.object({
  ...ownerFields,
  cascade_root: z.string(),
  /** What changed under it, `<kind>:<path>`, and through which kind of edge. */
  because_of: z.string(),
  edge_kind: EdgeKindSchema,
  /**
   * An agent's script tools checked against the script's inputs: `ok` (the agent's version bumped)
   * or `mismatch`; a flow's `tool_inputs` overrides checked against its linked agents' tools.
   */
  outcome: z.enum(['ok', 'mismatch']).optional(),
  /** The agent's new version, on `ok`. */
  version: z.string().optional(),
  at: z.string(),
});
export type DependentRevalidatedEvent = z.infer<typeof DependentRevalidatedEventSchema>;

export const CascadePlannedEventSchema = z.object({
  workspace: WorkspaceIdSchema,
  /** `<kind>:<path>` of what was redeployed. */
  root: z.string(),
  targets: z.array(
    z.object({
      owner_kind: LockOwnerKindSchema,
      path: z.string(),
      action: z.enum(['relock', 'revalidate']),
      node_ids: z.array(z.string()),
      depth: z.int().min(1),
    }),
  ),
  at: z.string(),
});
export type CascadePlannedEvent = z.infer<typeof CascadePlannedEventSchema>;

/** A cascade re-lock not made: none of the locks it imports changed since it was locked (Windmill PR #10966). */
export const LockSkippedEventSchema = z.object({
  ...ownerFields,
  cascade_root: z.string(),
  node_ids: z.array(z.string()),
  at: z.string(),
});

/**
 * An agent's tool no longer fits the script it runs by path (an input it binds is gone): recorded
 * on the agent (`locker.lock.status`), the agent's version kept. For a flow: a step's `tool_inputs`
 * override no longer fits the tool of the agent it links (`node_id` is the step).
 */
export const ToolMismatchEventSchema = z.object({
  ...ownerFields,
  /** The tool. */
  node_id: z.string(),
  /** `script:<path>` that was redeployed (for a flow, `agent:<path>`). */
  because_of: z.string(),
  error: z.string(),
  at: z.string(),
});
export type ToolMismatchEvent = z.infer<typeof ToolMismatchEventSchema>;

/** An agent's version was bumped because a script it runs as a tool changed (design: `locker.agent.changed`). */
export const AgentChangedEventSchema = z.object({
  workspace: WorkspaceIdSchema,
  path: z.string(),
  version: z.string(),
  because_of: z.string(),
  at: z.string(),
});

export const LOCK_EVENTS = {
  toolMismatch: defineEvent('evt.lock.tool_mismatch', ToolMismatchEventSchema),
  agentChanged: defineEvent('evt.lock.agent_changed', AgentChangedEventSchema),
  completed: defineEvent('evt.lock.completed', LockCompletedEventSchema),
  failed: defineEvent('evt.lock.failed', LockFailedEventSchema),
  superseded: defineEvent('evt.lock.superseded', LockSupersededEventSchema),
  skipped: defineEvent('evt.lock.skipped', LockSkippedEventSchema),
  revalidated: defineEvent('evt.lock.revalidated', DependentRevalidatedEventSchema),
  cascadePlanned: defineEvent('evt.lock.cascade_planned', CascadePlannedEventSchema),
} as const;

export const LockStatusRequestSchema = z.object({ actor: ActorSchema, ...ownerFields }).strict();
export const LockStatusReplySchema = z.object({
  units: z.array(
    z.object({
      node_id: z.string(),
      language: z.string(),
      version: z.string(),
      code_sha256: Sha256Schema,
      status: z.enum(['ok', 'error', 'pending', 'unlocked']),
      lock_sha256: Sha256Schema.nullable(),
      error_log: z.string().nullable(),
      locked_at: z.string().nullable(),
    }),
  ),
  /** An agent's tools checked against the scripts they run by path, the last check of each. */
  revalidations: z
    .array(
      z.object({
        node_id: z.string(),
        because_of: z.string(),
        status: z.enum(['ok', 'mismatch']),
        error_log: z.string().nullable(),
        checked_at: z.string(),
      }),
    )
    .optional(),
  /** What this owner depends on, as the last lock mapped it. */
  imports: z.array(
    z.object({
      node_id: z.string(),
      edge_kind: EdgeKindSchema,
      imported_kind: LockOwnerKindSchema,
      imported_path: z.string(),
      imported_lock_sha256: Sha256Schema.nullable(),
    }),
  ),
});
export type LockStatusReply = z.infer<typeof LockStatusReplySchema>;
