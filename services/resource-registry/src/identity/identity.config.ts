import { z } from 'zod';

/**
 * Settings of identities and tokens, keyed by environment variable.
 *
 * `FLOWMESH_JOB_TOKEN_KEY` signs job tokens (HMAC-SHA256). It is required when
 * `NODE_ENV=production`; elsewhere a missing key is generated per process with a warning, which is
 * enough for one registry replica (tokens die with the process, as they are short-lived anyway) but
 * not for several, which must share the key.
 */
export const identitySettingsShape = {
  FLOWMESH_ADMIN_TOKEN: z
    .string()
    .min(24, 'must be at least 24 characters')
    .max(256, 'must be at most 256 characters')
    .regex(/^\S+$/, 'must not contain whitespace')
    .optional(),
  FLOWMESH_ADMIN_EMAIL: z.email('must be an email address').default('admin@flowmesh.local'),
  FLOWMESH_ADMIN_USERNAME: z
    .string()
    .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/, 'must be letters, digits, _, - or .')
    .default('admin'),
  FLOWMESH_BOOTSTRAP: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  FLOWMESH_JOB_TOKEN_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  FLOWMESH_AUTH_CACHE_MS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds (0 turns the cache off)')
    .transform(Number)
    .default(1_000),
  NODE_ENV: z.string().optional(),
};

export interface IdentityConfig {
  /** The first admin's token on a fresh database; generated and printed once when absent. */
  readonly adminToken: string | undefined;
  readonly adminEmail: string;
  readonly adminUsername: string;
  /** Whether start-up creates the workspace `main` and its admin on a fresh database. */
  readonly bootstrapOnStart: boolean;
  /** Undefined: generate one for this process (never in production). */
  readonly jobTokenKey: string | undefined;
  /** How long a successful authentication is reused; identity changes elsewhere show within it. */
  readonly authCacheMs: number;
}

type IdentitySettings = z.output<z.ZodObject<typeof identitySettingsShape>>;

export function checkIdentitySettings(env: IdentitySettings, ctx: z.RefinementCtx): void {
  if (env.NODE_ENV === 'production' && env.FLOWMESH_JOB_TOKEN_KEY === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['FLOWMESH_JOB_TOKEN_KEY'],
      message:
        'is required when NODE_ENV=production (every registry replica must verify the same job tokens)',
    });
  }
}

export function toIdentityConfig(env: IdentitySettings): IdentityConfig {
  return {
    adminToken: env.FLOWMESH_ADMIN_TOKEN,
    adminEmail: env.FLOWMESH_ADMIN_EMAIL,
    adminUsername: env.FLOWMESH_ADMIN_USERNAME,
    bootstrapOnStart: env.FLOWMESH_BOOTSTRAP === 'on',
    jobTokenKey: env.FLOWMESH_JOB_TOKEN_KEY,
    authCacheMs: env.FLOWMESH_AUTH_CACHE_MS,
  };
}
