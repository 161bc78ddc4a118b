import { registryItemsContract as contract, type Flow } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import type { FlowDefinition } from './flow.repository.js';
import { ReadFlowsService } from './read-flows.service.js';
import { WriteFlowsService } from './write-flows.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

/** `registry.flow.*` over NATS. */
@Controller()
export class FlowsHandler {
  constructor(
    private readonly access: AccessService,
    private readonly read: ReadFlowsService,
    private readonly write: WriteFlowsService,
  ) {}

  @HandleRequest(contract.getFlow)
  async get(@Payload() req: Req<'getFlow'>): Promise<Flow> {
    return this.read.get(
      await this.access.authenticate(req.actor.token, req.workspace),
      req.path,
      req.version,
    );
  }

  @HandleRequest(contract.flowExists)
  async exists(@Payload() req: Req<'flowExists'>): Promise<{ exists: boolean }> {
    return {
      exists: await this.read.exists(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path,
      ),
    };
  }

  @HandleRequest(contract.createFlow)
  async create(@Payload() req: Req<'createFlow'>): Promise<Flow> {
    return this.write.create(
      await this.access.authenticate(req.actor.token, req.workspace),
      req.path,
      flowDefinition(req),
    );
  }

  @HandleRequest(contract.updateFlow)
  async update(@Payload() req: Req<'updateFlow'>): Promise<Flow> {
    const identity = await this.access.authenticate(req.actor.token, req.workspace);
    return this.write.update(identity, req.path, { ...flowDefinition(req), newPath: req.new_path });
  }

  @HandleRequest(contract.deleteFlow)
  async delete(@Payload() req: Req<'deleteFlow'>): Promise<{ deleted: true }> {
    await this.write.delete(await this.access.authenticate(req.actor.token, req.workspace), req.path);
    return { deleted: true };
  }

  @HandleRequest(contract.listFlows)
  async list(@Payload() req: Req<'listFlows'>) {
    return {
      flows: await this.read.list(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path_prefix,
      ),
    };
  }

  @HandleRequest(contract.listFlowVersions)
  async listVersions(@Payload() req: Req<'listFlowVersions'>) {
    return {
      versions: await this.read.listVersions(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path,
      ),
    };
  }
}

export function flowDefinition(input: {
  summary: string;
  description?: string | null;
  value: Record<string, unknown>;
  schema?: Record<string, unknown> | null;
}): FlowDefinition {
  return {
    summary: input.summary,
    description: input.description ?? null,
    value: input.value,
    schema: input.schema ?? null,
  };
}
