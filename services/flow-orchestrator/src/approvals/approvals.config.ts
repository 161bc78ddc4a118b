import { z } from 'zod';

/**
 * `FLOWMESH_RESUME_KEY` signs the resume and cancel links of suspended steps (HMAC-SHA256). It is
 * required with `NODE_ENV=production`; elsewhere a missing key is generated per process with a
 * warning, so links die with the process and another replica refuses them.
 */
export const approvalsSettingsShape = {
  FLOWMESH_RESUME_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  NODE_ENV: z.string().optional(),
};

export interface ApprovalsConfig {
  /** Undefined: generate one for this process (never in production). */
  readonly resumeKey: string | undefined;
}

type ApprovalsSettings = z.output<z.ZodObject<typeof approvalsSettingsShape>>;

export function checkApprovalsSettings(env: ApprovalsSettings, ctx: z.RefinementCtx): void {
  if (env.NODE_ENV === 'production' && env.FLOWMESH_RESUME_KEY === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['FLOWMESH_RESUME_KEY'],
      message: 'is required when NODE_ENV=production (every replica must verify the same resume links)',
    });
  }
}

export function toApprovalsConfig(env: ApprovalsSettings): ApprovalsConfig {
  return { resumeKey: env.FLOWMESH_RESUME_KEY };
}
