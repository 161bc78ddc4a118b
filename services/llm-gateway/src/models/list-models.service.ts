import type { ListModelsReply, ListModelsRequest } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { CredentialsResolver } from '../credentials/credentials-resolver.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { ProviderRegistry } from '../providers/provider-registry.js';
import { knownContextWindow } from './context-window.table.js';

/** `gateway.models.list`: the provider's own list, each model with the table's window when known. */
@Injectable()
export class ListModelsService {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly executor: ProviderExecutor,
    private readonly resolver: CredentialsResolver,
  ) {}

  async list(request: ListModelsRequest): Promise<ListModelsReply> {
    const adapter = this.registry.get(request.provider.kind);
    const credentials = await this.resolver.resolve({
      actor: request.actor,
      workspace: request.workspace,
      resource: request.provider.resource,
      kind: request.provider.kind,
    });
    const models = await this.executor.listModels(adapter, credentials, AbortSignal.timeout(25_000));
    return {
      models: models.map((model) => {
        const contextWindow = knownContextWindow(model.id, {
          enable1mContext: credentials.enable_1m_context,
        });
        return { ...model, ...(contextWindow !== undefined ? { contextWindow } : {}) };
      }),
    };
  }
}
