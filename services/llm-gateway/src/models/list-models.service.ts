import type { ListModelsReply, ListModelsRequest } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { KeyOwnership, withCredentialsFault } from '../credentials/key-ownership.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { CallerProvider } from '../providers/caller-provider.js';
import { knownContextWindow } from './context-window.table.js';

/**
 * `gateway.models.list`: the provider's own list, each model with the table's window when known.
 * A failure says whose fault it is (`details.fault`), as a chat's does.
 */
@Injectable()
export class ListModelsService {
  constructor(
    private readonly providers: CallerProvider,
    private readonly executor: ProviderExecutor,
    private readonly keys: KeyOwnership,
  ) {}

  async list(request: ListModelsRequest): Promise<ListModelsReply> {
    const { adapter, credentials } = await this.providers.of(request).catch((error: unknown) => {
      throw withCredentialsFault(error);
    });
    const models = await this.executor
      .listModels(adapter, credentials, AbortSignal.timeout(25_000))
      .catch((error: unknown) => {
        throw this.keys.attributeCaught(error, request.provider.resource);
      });
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
