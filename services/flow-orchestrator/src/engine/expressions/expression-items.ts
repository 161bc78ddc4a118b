import { Injectable } from '@nestjs/common';
import { JobTokens } from '../../registry/job-tokens.js';
import { RegistryGateway } from '../../registry/registry.gateway.js';
import type { ItemReader } from './item-calls.js';

/** `variable(path)` / `resource(path)` of a flow's expressions, read through the registry as the run. */
@Injectable()
export class ExpressionItems {
  constructor(
    private readonly registry: RegistryGateway,
    private readonly tokens: JobTokens,
  ) {}

  /** Reads as the job `tokenJob` acts (its token, so its permissions), in `workspace`. */
  readerFor(workspace: string, tokenJob: string): ItemReader {
    return async (kind, path) =>
      this.registry.interpolate(await this.tokens.tokenOf(tokenJob), workspace, `$${kind}:${path}`);
  }
}
