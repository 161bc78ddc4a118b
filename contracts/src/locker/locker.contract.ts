import { z } from 'zod';
import {
  createContractClient,
  defineRequest,
  SAFE_TO_REPEAT,
  type RequestTransport,
} from '../messaging/contract.js';
import { WorkspaceIdSchema } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';
import {
  AnnounceDeploysReplySchema,
  LockStatusReplySchema,
  LockStatusRequestSchema,
} from './lock-pipeline.contract.js';

/** An npm package name (npm's own rules: lower case, URL-safe, an optional `@scope/`). */
const NPM_PACKAGE_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/**
 * What a TypeScript script needs from npm: package name to version range (`2.1.3`, `^4`,
 * `latest`). Ranges are npm's; a URL, a path or a git reference is refused.
 */
export const TypescriptRequirementsSchema = z
  .record(
    z.string(),
    z
      .string()
      .min(1)
      .max(100)
      .regex(/^[a-zA-Z0-9.^~<>=|*+\- ]+$/, 'must be a version, a range or a dist-tag'),
  )
  .superRefine((requirements, ctx) => {
    const names = Object.keys(requirements);
    if (names.length > 100) ctx.addIssue({ code: 'custom', message: 'at most 100 packages' });
    for (const name of names)
      if (name.length > 214 || !NPM_PACKAGE_NAME.test(name))
        ctx.addIssue({ code: 'custom', path: [name], message: 'must be an npm package name' });
  });
export type TypescriptRequirements = z.infer<typeof TypescriptRequirementsSchema>;

/**
 * A TypeScript lock: the requirements and npm's lockfile for them (`package-lock.json`, version
 * 3), every package of the tree with its exact version and integrity. `hash` names it: the same
 * requirements locked at the same time give the same lock, which workers install once.
 */
export const TypescriptLockSchema = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha-256 in hex'),
  requirements: TypescriptRequirementsSchema,
  lockfile: z.record(z.string(), z.unknown()),
});
export type TypescriptLock = z.infer<typeof TypescriptLockSchema>;

export const LockTypescriptRequestSchema = z.object({ requirements: TypescriptRequirementsSchema });
export type LockTypescriptRequest = z.infer<typeof LockTypescriptRequestSchema>;
export const LockTypescriptReplySchema = z.object({
  lock: TypescriptLockSchema,
  /** True when the lock was already known (computed earlier for the same requirements). */
  cached: z.boolean(),
});

export const RebuildDepmapRequestSchema = z
  .object({ actor: ActorSchema, workspace: WorkspaceIdSchema })
  .strict();
/** What the registry announced again; the locker maps and locks each as a deploy, in the background. */
export const RebuildDepmapReplySchema = AnnounceDeploysReplySchema;

/**
 * dependency-locker: locks a script's packages once, so every worker installs the same tree. A
 * lock is resolved against the npm registry the first time its requirements are seen and kept.
 */
export const lockerContract = {
  lockTypescript: defineRequest(
    'locker.typescript.lock',
    LockTypescriptRequestSchema,
    LockTypescriptReplySchema,
    {
      timeoutMs: 180_000,
    },
  ),
  /** The locks of an owner's units (error logs of failed ones) and what it imports; needs read access. */
  lockStatus: defineRequest(
    'locker.lock.status',
    LockStatusRequestSchema,
    LockStatusReplySchema,
    SAFE_TO_REPEAT,
  ),
  /**
   * Rebuilds a workspace's dependency map (Windmill's `rebuild_map`), for items deployed before the
   * locker ran: every script, flow and agent is announced again and handled as a deploy (its code
   * kept, its edges rewritten, locked). Admins of the workspace only.
   */
  rebuildDepmap: defineRequest(
    'locker.depmap.rebuild',
    RebuildDepmapRequestSchema,
    RebuildDepmapReplySchema,
    {
      timeoutMs: 120_000,
    },
  ),
} as const;

export function createLockerClient(transport: RequestTransport) {
  return createContractClient(lockerContract, transport);
}
export type LockerClient = ReturnType<typeof createLockerClient>;
