import { settings, type ServiceConfig } from '@flowmesh/bootstrap';
import { z } from 'zod';

/**
 * Settings only dependency-locker reads, keyed by environment variable. The common ones (NATS_URL,
 * DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports, log level, shutdown timeout) come from
 * @flowmesh/bootstrap. Without `FLOWMESH_LOCKER_NPM_REGISTRY` the npm registry is npm's own
 * setting (`npm_config_registry`, `.npmrc`).
 */
export const dependencyLockerConfigSchema = z
  .object({
    /** The npm executable that resolves TypeScript locks. */
    FLOWMESH_LOCKER_NPM: z.string().min(1).default('npm'),
    /** The npm registry locks are resolved against (`--registry`). */
    FLOWMESH_LOCKER_NPM_REGISTRY: settings.httpUrl().optional(),
    /** The longest one lock may take to resolve. */
    FLOWMESH_LOCKER_TIMEOUT_S: settings.positiveInt().default(120),
    /**
     * How long a lock of floating ranges (`^2`, `latest`, ...) is kept before it is resolved again,
     * so new releases reach the scripts; a lock of exact versions never changes.
     */
    FLOWMESH_LOCKER_REFRESH_S: settings.positiveInt().default(86_400),
    /** How long a dependent waits for more changes before it is locked again (Windmill: 5 s). */
    FLOWMESH_LOCKER_DEBOUNCE_MS: settings.wholeNumber().default(5_000),
    /** How often the lock job queue is looked at when nothing woke it. */
    FLOWMESH_LOCKER_POLL_MS: settings.positiveInt().default(1_000),
    /** python3 locks: `uv` (when on PATH), `pip` (`pip install --dry-run --report`), or `auto`. */
    FLOWMESH_LOCKER_PYTHON_RESOLVER: settings.oneOf(['auto', 'uv', 'pip']).default('auto'),
    /** The python interpreter whose pip resolves (`<python> -m pip`). */
    FLOWMESH_LOCKER_PYTHON: z.string().min(1).default('python3'),
    /** The package index python locks are resolved against (`--index-url`; `file://` works). */
    FLOWMESH_LOCKER_PYTHON_INDEX: z.string().min(1).optional(),
  })
  .transform((env) => ({
    locker: {
      npm: env.FLOWMESH_LOCKER_NPM,
      ...(env.FLOWMESH_LOCKER_NPM_REGISTRY ? { npmRegistry: env.FLOWMESH_LOCKER_NPM_REGISTRY } : {}),
      timeoutMs: env.FLOWMESH_LOCKER_TIMEOUT_S * 1000,
      refreshMs: env.FLOWMESH_LOCKER_REFRESH_S * 1000,
      debounceMs: env.FLOWMESH_LOCKER_DEBOUNCE_MS,
      pollMs: env.FLOWMESH_LOCKER_POLL_MS,
      python: {
        resolver: env.FLOWMESH_LOCKER_PYTHON_RESOLVER,
        interpreter: env.FLOWMESH_LOCKER_PYTHON,
        ...(env.FLOWMESH_LOCKER_PYTHON_INDEX ? { indexUrl: env.FLOWMESH_LOCKER_PYTHON_INDEX } : {}),
      },
    } satisfies LockerSettings,
  }));

export interface PythonResolverSettings {
  readonly resolver: 'auto' | 'uv' | 'pip';
  readonly interpreter: string;
  readonly indexUrl?: string;
}

export interface LockerSettings {
  readonly npm: string;
  readonly npmRegistry?: string;
  readonly timeoutMs: number;
  readonly refreshMs: number;
  readonly debounceMs: number;
  readonly pollMs: number;
  readonly python: PythonResolverSettings;
}

/** Nest token of `LockerSettings`. */
export const LOCKER_SETTINGS = Symbol('LOCKER_SETTINGS');

export type DependencyLockerConfig = ServiceConfig<z.output<typeof dependencyLockerConfigSchema>>;
