import {
  checkS3Credentials,
  s3ConnectionOf,
  S3_SETTINGS,
  settings,
  type S3Connection,
  type ServiceConfig,
} from '@flowmesh/bootstrap';
import { checkSecretKeysSetting, secretKeyringOf, type SecretKeyring } from '@flowmesh/keyring';
import {
  OUTBOUND_ALLOW_CIDRS_SETTING,
  outboundAllowCidrsSetting,
  type AllowedCidr,
} from '@flowmesh/outbound';
import { z } from 'zod';

const JOB_TOKEN_KEYS_SETTING = 'FLOWMESH_JOB_TOKEN_STORE_KEYS';

/**
 * Settings only agent-runtime reads, keyed by environment variable. The common ones (NATS_URL,
 * DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports, log level, shutdown timeout) come from
 * @flowmesh/bootstrap.
 */
export const agentRuntimeConfigSchema = z
  .object({
    NODE_ENV: z.string().optional(),
    /**
     * Keys that seal the job token of each accepted step at rest (`keyid:base64key,...`, the first
     * current), the same setting as the orchestrator's. Required with NODE_ENV=production.
     */
    [JOB_TOKEN_KEYS_SETTING]: z.string().optional(),
    /** Agent steps one replica runs at once; more wait in the database for a free slot. */
    FLOWMESH_AGENT_MAX_RUNS: settings.positiveInt().default(32),
    /**
     * A replica that stops renewing its claim on a step for this long leaves it to another (it
     * renews four times a lease, and a replica looks for steps to take over as often): a dead
     * replica's steps are taken over within 1.25 leases, 3.75 s by default.
     */
    FLOWMESH_AGENT_LEASE_MS: settings.positiveInt().default(3_000),
    /** How long one tool call (a script or flow job) may take before the agent is told it timed out. */
    FLOWMESH_AGENT_TOOL_TIMEOUT_S: settings.positiveInt().default(600),
    /**
     * How long a step parked on tools that need approval waits for an answer (000: 1800 s); at
     * most a day, as the run's job token must outlive the wait.
     */
    FLOWMESH_AGENT_APPROVAL_TIMEOUT_S: settings
      .positiveInt()
      .refine((seconds) => seconds <= 86_400, 'must be at most 86400 (a day)')
      .default(1_800),
    /**
     * How often a replica drops the checkpoints of parked steps whose job left the queue (a cancel
     * it did not hear, a job removed): without it they would wait out their timeout.
     */
    FLOWMESH_AGENT_SWEEP_MS: settings.positiveInt().default(60_000),
    /** A step whose replica died (or the services it called failed under it) this many times is failed instead of started again. */
    FLOWMESH_AGENT_MAX_ATTEMPTS: settings.positiveInt().default(5),
    /** Internal ranges MCP servers may be reached at (all of them are refused otherwise). */
    [OUTBOUND_ALLOW_CIDRS_SETTING]: outboundAllowCidrsSetting(),
    /** The object storage `user_attachments` are read from (the mesh's bucket). */
    ...S3_SETTINGS,
    /**
     * Where a workspace's steps may attach objects from: `bucket/prefix` entries, comma-separated,
     * `{workspace}` standing for the step's workspace. Default: `attachments/{workspace}/` in
     * `S3_BUCKET`; never memory-service's `memory/`.
     */
    FLOWMESH_AGENT_ATTACHMENTS: settings
      .text()
      .transform((text, ctx) => parseAttachmentLocations(text, ctx))
      .optional(),
  })
  .superRefine((env, ctx) => {
    checkSecretKeysSetting(JOB_TOKEN_KEYS_SETTING, env[JOB_TOKEN_KEYS_SETTING], env.NODE_ENV, ctx);
    checkS3Credentials(env, ctx);
  })
  .transform((env) => ({
    agents: {
      maxRuns: env.FLOWMESH_AGENT_MAX_RUNS,
      leaseMs: env.FLOWMESH_AGENT_LEASE_MS,
      toolTimeoutMs: env.FLOWMESH_AGENT_TOOL_TIMEOUT_S * 1000,
      maxAttempts: env.FLOWMESH_AGENT_MAX_ATTEMPTS,
      approvalTimeoutS: env.FLOWMESH_AGENT_APPROVAL_TIMEOUT_S,
      sweepMs: env.FLOWMESH_AGENT_SWEEP_MS,
      outboundAllowCidrs: env[OUTBOUND_ALLOW_CIDRS_SETTING],
      jobTokenKeys: secretKeyringOf(JOB_TOKEN_KEYS_SETTING, env[JOB_TOKEN_KEYS_SETTING], 'job token key'),
      attachments: attachmentsOf(s3ConnectionOf(env), env.FLOWMESH_AGENT_ATTACHMENTS),
    } satisfies AgentsSettings,
  }));

/** Where attachments are read from: the S3 connection and the allowed `bucket/prefix` locations. */
export interface AttachmentSettings {
  readonly s3: Omit<S3Connection, 'bucket'>;
  readonly locations: readonly AttachmentLocation[];
}

/** A bucket and a key prefix (`{workspace}` in it stands for the step's workspace). */
export interface AttachmentLocation {
  readonly bucket: string;
  readonly prefix: string;
}

function parseAttachmentLocations(text: string, ctx: z.RefinementCtx): AttachmentLocation[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const slash = entry.indexOf('/');
      const bucket = slash < 0 ? entry : entry.slice(0, slash);
      const prefix = slash < 0 ? '' : entry.slice(slash + 1);
      if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
        ctx.addIssue({ code: 'custom', message: `"${entry}": "${bucket}" is not an S3 bucket name` });
      if (!prefix.includes('{workspace}'))
        ctx.addIssue({
          code: 'custom',
          message: `"${entry}": the prefix must hold {workspace}, so a workspace reads only its own objects`,
        });
      return { bucket, prefix };
    });
}

/** Attachments need the S3 connection; without `FLOWMESH_AGENT_ATTACHMENTS`, the mesh's bucket. */
function attachmentsOf(
  s3: S3Connection | null,
  locations: AttachmentLocation[] | undefined,
): AttachmentSettings | null {
  if (!s3) return null;
  const { bucket, ...connection } = s3;
  return { s3: connection, locations: locations ?? [{ bucket, prefix: 'attachments/{workspace}/' }] };
}

export interface AgentsSettings {
  readonly maxRuns: number;
  readonly leaseMs: number;
  readonly toolTimeoutMs: number;
  readonly maxAttempts: number;
  readonly approvalTimeoutS: number;
  /** How often parked checkpoints whose job left the queue are swept. */
  readonly sweepMs: number;
  readonly outboundAllowCidrs: readonly AllowedCidr[];
  readonly jobTokenKeys: SecretKeyring;
  /** Null: no object storage configured, a step with attachments fails saying so. */
  readonly attachments: AttachmentSettings | null;
}

export type AgentRuntimeConfig = ServiceConfig<z.output<typeof agentRuntimeConfigSchema>>;

/** Nest token of `AgentsSettings`. */
export const AGENTS_SETTINGS = Symbol('AGENTS_SETTINGS');
