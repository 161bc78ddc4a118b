import { MeshError, type CallerIdentity } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { ItemBody } from '../drafts/item-body.schemas.js';
import { ReadFlowsUseCase } from '../flows/read-flows.use-case.js';
import { ReadResourcesUseCase } from '../resources/read-resources.use-case.js';
import { ReadScriptsUseCase } from '../scripts/read-scripts.use-case.js';
import {
  flowDependencies,
  resourceDependencies,
  type Dependencies,
  type ItemRef,
} from './item-dependencies.js';

export interface SourceItem {
  readonly body: ItemBody;
  readonly dependencies: Dependencies;
}

/** Reads an item to deploy, as the caller, with what it needs. */
@Injectable()
export class SourceItemReader {
  constructor(
    private readonly resources: ReadResourcesUseCase,
    private readonly scripts: ReadScriptsUseCase,
    private readonly flows: ReadFlowsUseCase,
  ) {}

  /** `neededBy`: the item that led here, named in a NOT_FOUND so the caller sees why it was looked for. */
  async read(identity: CallerIdentity, ref: ItemRef, neededBy: string | undefined): Promise<SourceItem> {
    try {
      return await this.load(identity, ref);
    } catch (error) {
      if (error instanceof MeshError && error.code === 'NOT_FOUND' && neededBy !== undefined) {
        throw new MeshError('NOT_FOUND', `${error.message} (needed by ${neededBy})`, error.details);
      }
      throw error;
    }
  }

  private async load(identity: CallerIdentity, ref: ItemRef): Promise<SourceItem> {
    switch (ref.kind) {
      case 'resource': {
        const resource = await this.resources.get(identity, ref.path);
        return {
          body: {
            kind: 'resource',
            body: {
              resource_type: resource.resource_type,
              value: resource.value,
              description: resource.description,
            },
          },
          dependencies: resourceDependencies(resource.resource_type, resource.value),
        };
      }
      case 'script': {
        const script = await this.scripts.get(identity, ref.path, ref.hash);
        return {
          body: {
            kind: 'script',
            body: {
              language: script.language,
              content: script.content,
              lock: script.lock,
              schema: script.schema,
              summary: script.summary,
              description: script.description,
            },
          },
          dependencies: { items: [], variables: [] },
        };
      }
      case 'flow': {
        const flow = await this.flows.get(identity, ref.path);
        return {
          body: {
            kind: 'flow',
            body: {
              summary: flow.summary,
              description: flow.description,
              value: flow.value,
              schema: flow.schema,
            },
          },
          dependencies: flowDependencies(flow.value),
        };
      }
    }
  }
}
