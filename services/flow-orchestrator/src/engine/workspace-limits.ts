import {
  WORKSPACE_LIMIT_DEFAULTS,
  type FlowModule,
  type FlowValue,
  type WorkspaceSettings,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { WorkspaceSettingsStore, type StoredWorkspaceSettings } from '../store/workspace-settings.store.js';

/** How long a process keeps a workspace's limits before reading them again (ms). */
const CACHE_MS = 5_000;

/**
 * A workspace's engine limits (`workspace_settings`, defaults where unset), read at most every
 * five seconds per workspace and process: a loop or a run start asks, not every iteration. A
 * change reaches every worker within that time.
 */
@Injectable()
export class WorkspaceLimits {
  private readonly cache = new Map<string, { at: number; limits: Promise<WorkspaceSettings> }>();

  constructor(private readonly store: WorkspaceSettingsStore) {}

  of(workspace: string): Promise<WorkspaceSettings> {
    const cached = this.cache.get(workspace);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.limits;
    const limits = this.store.read(workspace).then(withDefaults);
    // A failed read is not kept: the next asks again.
    limits.catch(() => this.cache.delete(workspace));
    this.cache.set(workspace, { at: Date.now(), limits });
    return limits;
  }

  /** A change made in this process counts at once here (others see it within the cache time). */
  forget(workspace: string): void {
    this.cache.delete(workspace);
  }
}

export function withDefaults(stored: StoredWorkspaceSettings): WorkspaceSettings {
  return Object.fromEntries(
    Object.entries(WORKSPACE_LIMIT_DEFAULTS).map(([key, fallback]) => [
      key,
      stored[key as keyof WorkspaceSettings] ?? fallback,
    ]),
  ) as WorkspaceSettings;
}

/** A run going past one of its workspace's limits: its message names the setting. */
export class WorkspaceLimitError extends Error {
  override readonly name = 'LimitExceeded';
}

/** `forloop 'a' has 1000000 iterations; this workspace allows at most 100000 (max_loop_iterations)`. */
export function tooManyIterations(
  loop: string,
  kind: 'forloop' | 'whileloop',
  count: number,
  limit: number,
): string {
  const has = kind === 'forloop' ? `has ${count} iterations` : `reached ${count} iterations`;
  return `${kind} '${loop}' ${has}; this workspace allows at most ${limit} (max_loop_iterations)`;
}

/** The modules of a flow value, nested ones included (loop bodies, branches, failure, preprocessor). */
export function countModules(
  value: Pick<FlowValue, 'modules' | 'failure_module' | 'preprocessor_module'>,
): number {
  let count = 0;
  const visit = (modules: readonly FlowModule[] | undefined): void => {
    for (const module of modules ?? []) {
      count += 1;
      const inner = module.value as {
        modules?: FlowModule[];
        branches?: Array<{ modules?: FlowModule[] }>;
        default?: FlowModule[];
      };
      visit(inner.modules);
      visit(inner.default);
      for (const branch of inner.branches ?? []) visit(branch.modules);
    }
  };
  visit(value.modules);
  if (value.failure_module) visit([value.failure_module]);
  if (value.preprocessor_module) visit([value.preprocessor_module]);
  return count;
}

/** `flow has 25000 modules; this workspace allows at most 20000 (max_flow_modules)`. */
export function tooManyModules(count: number, limit: number): string {
  return `flow has ${count} modules; this workspace allows at most ${limit} (max_flow_modules)`;
}
