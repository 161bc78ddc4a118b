import { z } from 'zod';
import { ErrorEnvelopeSchema } from '../errors.js';
import { principalProblem, WorkspaceIdSchema } from './access-path.js';
import { RUNNABLE_KINDS, ScopeListSchema, SCOPE_DOMAINS } from './access-scope.js';

/**
 * Who is calling. Every registry request from another service carries the caller's token (an API
 * token or a job token) and the registry works out the identity; a service never asserts one.
 */
export const ActorSchema = z.object({ token: z.string().min(1, 'must not be empty').max(4096) }).strict();
export type Actor = z.infer<typeof ActorSchema>;

/** The identity a token stands for in one workspace, resolved by the registry. */
export const CallerIdentitySchema = z.object({
  workspace: z.string(),
  /** `job`: a job token, acting as `onBehalfOf` for job `jobId`. */
  kind: z.enum(['user', 'job']),
  /** For a job acting as a group (`g/<group>`), that principal; no user name has a '/'. */
  username: z.string(),
  /** Empty for a job acting as a group. */
  email: z.string(),
  isAdmin: z.boolean(),
  /** Group names, `all` included (every member is in it). */
  groups: z.array(z.string()),
  /** Absent: unrestricted. Present: only what these allow. */
  scopes: z.array(z.string()).optional(),
  jobId: z.string().optional(),
  onBehalfOf: z.string().optional(),
  /**
   * Only in `registry.auth.authenticate`'s reply: when the token stops being valid (ISO time;
   * null: never). Whoever caches a decision made from the token keeps it no longer than this.
   */
  tokenExpiresAt: z.string().nullable().optional(),
});
export type CallerIdentity = z.infer<typeof CallerIdentitySchema>;

export const ScopeDomainSchema = z.enum(SCOPE_DOMAINS);

/** Principal a job runs as: `u/<user>`, `g/<group>`, or an email-shaped user name. */
export const JobOnBehalfOfSchema = z.string().superRefine((value, ctx) => {
  if (z.email().safeParse(value).success) return;
  const problem = principalProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `${problem}, or an email` });
});

export const AuthenticateRequestSchema = z
  .object({ token: z.string().min(1).max(4096), workspace: WorkspaceIdSchema })
  .strict();

export const AccessCheckRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    path: z.string().min(1),
    action: z.enum(['read', 'write']),
    /** The kind of item (`resources`, `flows`, ...) whose scopes apply; absent: any domain's. */
    domain: ScopeDomainSchema.optional(),
  })
  .strict();
export const AccessCheckReplySchema = z.object({ allowed: z.boolean() });

/** A job token lives at most this long (and never longer than a job token that asks for it). */
export const JOB_TOKEN_MAX_TTL_SECONDS = 7 * 24 * 60 * 60;

export const IssueJobTokenRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    jobId: z.string().min(1).max(128),
    onBehalfOf: JobOnBehalfOfSchema,
    /** Narrows the actor's scopes; absent: the actor's. */
    scopes: ScopeListSchema.optional(),
    ttlSeconds: z.number().int().min(1).max(JOB_TOKEN_MAX_TTL_SECONDS),
    /**
     * The flow or script path the job runs. When the actor's own scopes hold a `jobs:run` scope
     * covering it (a run token), the job token gets the principal's permissions instead of the
     * actor's scopes (narrowed by `scopes` only): the scope limits what the token may start,
     * not what the run it started may do. Otherwise it changes nothing.
     */
    runPath: z.string().min(1).max(1000).optional(),
    /** What `runPath` is: a `jobs:run:flows` scope covers only flows, `jobs:run:scripts` only scripts. */
    runKind: z.enum(RUNNABLE_KINDS).optional(),
  })
  .strict();
export const IssuedTokenSchema = z.object({ token: z.string(), expiresAt: z.string() });

/** The most job tokens one `registry.token.issue_jobs` request asks for. */
export const JOB_TOKEN_BATCH_MAX = 256;

/**
 * Several `registry.token.issue_job` requests in one message (each with its own actor): a
 * service that starts runs in bursts asks once per burst instead of once per run.
 */
export const IssueJobTokensRequestSchema = z
  .object({ requests: z.array(IssueJobTokenRequestSchema).min(1).max(JOB_TOKEN_BATCH_MAX) })
  .strict();
/** Per request, in order: its token, or the error `registry.token.issue_job` would have answered. */
export const IssueJobTokensReplySchema = z.object({
  results: z.array(
    z.union([
      IssuedTokenSchema.extend({ ok: z.literal(true) }),
      z.object({ ok: z.literal(false), error: ErrorEnvelopeSchema }),
    ]),
  ),
});

export const AdminInitRequestSchema = z
  .object({
    /** The first admin's token to use instead of a generated one (`FLOWMESH_ADMIN_TOKEN`). */
    adminToken: z.string().min(24).max(256).regex(/^\S+$/, 'must not contain whitespace').optional(),
  })
  .strict();
export const AdminInitReplySchema = z.object({
  created: z.boolean(),
  workspace: z.string(),
  username: z.string(),
  email: z.string(),
  /** Only when this call created the admin (and no token was given): shown once, never again. */
  token: z.string().optional(),
});
export type AdminInitReply = z.infer<typeof AdminInitReplySchema>;
