import {
  registryItemsContract as contract,
  type CallerIdentity,
  type Flow,
  type RequestOf,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { FlowDefinition } from './flow.repository.js';
import { ReadFlowsUseCase } from './read-flows.use-case.js';
import { WriteFlowsUseCase } from './write-flows.use-case.js';

/** `registry.flow.*` over NATS. */
@Controller()
export class FlowsHandler {
  constructor(
    private readonly read: ReadFlowsUseCase,
    private readonly write: WriteFlowsUseCase,
  ) {}

  @HandleRequest(contract.getFlow)
  async get(
    @Payload() req: RequestOf<typeof contract.getFlow>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Flow> {
    return this.read.get(identity, req.path, req.version);
  }

  @HandleRequest(contract.flowExists)
  async exists(
    @Payload() req: RequestOf<typeof contract.flowExists>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ exists: boolean }> {
    return {
      exists: await this.read.exists(identity, req.path),
    };
  }

  @HandleRequest(contract.createFlow)
  async create(
    @Payload() req: RequestOf<typeof contract.createFlow>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Flow> {
    return this.write.create(identity, req.path, flowDefinition(req));
  }

  @HandleRequest(contract.updateFlow)
  async update(
    @Payload() req: RequestOf<typeof contract.updateFlow>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Flow> {
    return this.write.update(identity, req.path, { ...flowDefinition(req), newPath: req.new_path });
  }

  @HandleRequest(contract.deleteFlow)
  async delete(
    @Payload() req: RequestOf<typeof contract.deleteFlow>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ deleted: true }> {
    await this.write.delete(identity, req.path);
    return { deleted: true };
  }

  @HandleRequest(contract.listFlows)
  async list(@Payload() req: RequestOf<typeof contract.listFlows>, @MeshCaller() identity: CallerIdentity) {
    return {
      flows: await this.read.list(identity, req.path_prefix),
    };
  }

  @HandleRequest(contract.listFlowVersions)
  async listVersions(
    @Payload() req: RequestOf<typeof contract.listFlowVersions>,
    @MeshCaller() identity: CallerIdentity,
  ) {
    return {
      versions: await this.read.listVersions(identity, req.path),
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
