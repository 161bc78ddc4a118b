import {
  registryItemsContract as contract,
  type CallerIdentity,
  type RequestOf,
  type Variable,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ReadVariablesUseCase } from './read-variables.use-case.js';
import { WriteVariablesUseCase } from './write-variables.use-case.js';

/** `registry.variable.*` over NATS. */
@Controller()
export class VariablesHandler {
  constructor(
    private readonly read: ReadVariablesUseCase,
    private readonly write: WriteVariablesUseCase,
  ) {}

  @HandleRequest(contract.getVariable)
  async get(
    @Payload() req: RequestOf<typeof contract.getVariable>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Variable> {
    return this.read.get(identity, req.path, req.decrypt_secret ?? true);
  }

  @HandleRequest(contract.getVariableValue)
  async getValue(
    @Payload() req: RequestOf<typeof contract.getVariableValue>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ value: string }> {
    return {
      value: await this.read.getValue(identity, req.path),
    };
  }

  @HandleRequest(contract.variableExists)
  async exists(
    @Payload() req: RequestOf<typeof contract.variableExists>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ exists: boolean }> {
    return {
      exists: await this.read.exists(identity, req.path),
    };
  }

  @HandleRequest(contract.createVariable)
  async create(
    @Payload() req: RequestOf<typeof contract.createVariable>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Variable> {
    return this.write.create(identity, {
      path: req.path,
      value: req.value,
      isSecret: req.is_secret,
      description: req.description,
    });
  }

  @HandleRequest(contract.updateVariable)
  async update(
    @Payload() req: RequestOf<typeof contract.updateVariable>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Variable> {
    return this.write.update(identity, req.path, {
      newPath: req.new_path,
      value: req.value,
      isSecret: req.is_secret,
      description: req.description,
    });
  }

  @HandleRequest(contract.deleteVariable)
  async delete(
    @Payload() req: RequestOf<typeof contract.deleteVariable>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ deleted: true }> {
    await this.write.delete(identity, req.path);
    return { deleted: true };
  }

  @HandleRequest(contract.listVariables)
  async list(
    @Payload() req: RequestOf<typeof contract.listVariables>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ variables: Variable[] }> {
    return {
      variables: await this.read.list(identity, req.path_prefix),
    };
  }
}
