import type { ListModelsReply, ListModelsRequest } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { CallerProvider } from '../providers/caller-provider.js';
import { knownContextWindow } from './context-window.table.js';

/** `gateway.models.list`: the provider's own list, each model with the table's window when known. */
@Injectable()
export class ListModelsService {
  constructor(
    private readonly providers: CallerProvider,
    private readonly executor: ProviderExecutor,
  ) {}

  async list(request: ListModelsRequest): Promise<ListModelsReply> {
    const { adapter, credentials } = await this.providers.of(request);
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
