import { Injectable } from '@nestjs/common';
import { JobStore } from '../../store/job.store.js';
import { hasReferences, RegistryGateway } from '../../registry/registry.gateway.js';
import { JobTokens } from '../../registry/job-tokens.js';

const TTL_MS = 60_000;

/**
 * A flow's `flow_env` with its `$var:`/`$res:` references resolved as the run, kept in memory
 * only (resolved values may be secrets: they are never written anywhere).
 */
@Injectable()
export class FlowEnvResolver {
  private readonly cache = new Map<string, { at: number; value: Promise<Record<string, unknown>> }>();

  constructor(
    private readonly jobs: JobStore,
    private readonly registry: RegistryGateway,
    private readonly tokens: JobTokens,
  ) {}

  /**
   * `{ flow_env }` for the expressions of a flow job with this runtime: an empty object when no
   * flow up its scopes has one, so `flow_env.X` reads as undefined, as in Windmill (its test
   * test_flow_env_marks_sub_flows_only_without_ancestor_env gets null from `flow_env.KEY ?? null`).
   */
  async varsOf(
    runtime: { envJob?: string; tokenJob?: string },
    jobId: string,
  ): Promise<{ flow_env: unknown }> {
    if (!runtime.envJob) return { flow_env: {} };
    return { flow_env: await this.resolve(runtime.envJob, runtime.tokenJob ?? jobId) };
  }

  resolve(envJob: string | undefined, tokenJob: string): Promise<Record<string, unknown>> {
    if (!envJob) return Promise.resolve({});
    const cached = this.cache.get(envJob);
    if (cached && Date.now() - cached.at < TTL_MS) return cached.value;
    const value = this.load(envJob, tokenJob);
    if (this.cache.size > 1_000) this.cache.clear();
    this.cache.set(envJob, { at: Date.now(), value });
    value.catch(() => this.cache.delete(envJob));
    return value;
  }

  private async load(envJob: string, tokenJob: string): Promise<Record<string, unknown>> {
    const row = await this.jobs.flowEnvOf(envJob);
    const env = row?.flow_env ?? {};
    if (!row || !hasReferences(env)) return env;
    const token = await this.tokens.tokenOf(tokenJob);
    return (await this.registry.interpolate(token, row.workspace, env)) as Record<string, unknown>;
  }
}

/** `flow_env` as process environment: strings as they are, other JSON values as JSON. */
export function envStrings(env: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) continue;
    out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}
