import { settings, type ServiceConfig } from '@flowmesh/bootstrap';
import { z } from 'zod';

/**
 * Settings only dependency-locker reads, keyed by environment variable. The common ones (NATS_URL,
 * DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports, log level, shutdown timeout) come from
 * @flowmesh/bootstrap. The npm registry is npm's own setting (`npm_config_registry`, `.npmrc`).
 */
export const dependencyLockerConfigSchema = z
  .object({
    /** The npm executable that resolves TypeScript locks. */
    FLOWMESH_LOCKER_NPM: z.string().min(1).default('npm'),
    /** The longest one lock may take to resolve. */
    FLOWMESH_LOCKER_TIMEOUT_S: settings.positiveInt().default(120),
    /**
     * How long a lock of floating ranges (`^2`, `latest`, ...) is kept before it is resolved again,
     * so new releases reach the scripts; a lock of exact versions never changes.
     */
    FLOWMESH_LOCKER_REFRESH_S: settings.positiveInt().default(86_400),
  })
  .transform((env) => ({
    locker: {
      npm: env.FLOWMESH_LOCKER_NPM,
      timeoutMs: env.FLOWMESH_LOCKER_TIMEOUT_S * 1000,
      refreshMs: env.FLOWMESH_LOCKER_REFRESH_S * 1000,
    } satisfies LockerSettings,
  }));

export interface LockerSettings {
  readonly npm: string;
  readonly timeoutMs: number;
  readonly refreshMs: number;
}

/** Nest token of `LockerSettings`. */
export const LOCKER_SETTINGS = Symbol('LOCKER_SETTINGS');

export type DependencyLockerConfig = ServiceConfig<z.output<typeof dependencyLockerConfigSchema>>;
