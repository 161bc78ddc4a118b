import { randomUUID } from 'node:crypto';
import type { FlowModule } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { SqlStatement } from '../store/sql-batch.js';
import { JobTokens } from '../registry/job-tokens.js';
import { RegistryGateway } from '../registry/registry.gateway.js';
import { ENGINE_CONFIG, type EngineConfig } from './engine.config.js';
import type { FlowRun } from './flow-run.js';

/**
 * `job_token_scopes`: a step's jobs act with a token narrowed to these scopes, issued from the
 * flow's own token (so a step can only narrow it), and everything the step runs inherits it.
 */
@Injectable()
export class ScopedTokens {
  constructor(
    private readonly registry: RegistryGateway,
    private readonly tokens: JobTokens,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  /** The token job a module's jobs use, and the statement storing a narrowed token if one was issued. */
  async forModule(
    run: FlowRun,
    module: FlowModule,
    jobId: string = randomUUID(),
  ): Promise<{ tokenJob: string; statements: SqlStatement[] }> {
    const inherited = run.runtime.tokenJob ?? run.id;
    const scopes = module.job_token_scopes;
    if (!scopes || scopes.length === 0) return { tokenJob: inherited, statements: [] };
    const issued = await this.registry.issueJobToken({
      token: await this.tokens.tokenOf(inherited),
      workspace: run.job.workspace,
      jobId,
      onBehalfOf: run.job.on_behalf_of,
      scopes: [...scopes],
      ttlSeconds: this.config.jobTokenTtlSeconds,
    });
    return { tokenJob: jobId, statements: [this.tokens.store(jobId, issued.token, issued.expiresAt)] };
  }
}
