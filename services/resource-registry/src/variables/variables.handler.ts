import { registryItemsContract as contract, type Variable } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { ReadVariablesService } from './read-variables.service.js';
import { WriteVariablesService } from './write-variables.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

/** `registry.variable.*` over NATS. */
@Controller()
export class VariablesHandler {
  constructor(
    private readonly access: AccessService,
    private readonly read: ReadVariablesService,
    private readonly write: WriteVariablesService,
  ) {}

  @HandleRequest(contract.getVariable)
  async get(@Payload() req: Req<'getVariable'>): Promise<Variable> {
    return this.read.get(
      await this.access.authenticate(req.actor.token, req.workspace),
      req.path,
      req.decrypt_secret ?? true,
    );
  }

  @HandleRequest(contract.getVariableValue)
  async getValue(@Payload() req: Req<'getVariableValue'>): Promise<{ value: string }> {
    return {
      value: await this.read.getValue(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path,
      ),
    };
  }

  @HandleRequest(contract.variableExists)
  async exists(@Payload() req: Req<'variableExists'>): Promise<{ exists: boolean }> {
    return {
      exists: await this.read.exists(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path,
      ),
    };
  }

  @HandleRequest(contract.createVariable)
  async create(@Payload() req: Req<'createVariable'>): Promise<Variable> {
    const identity = await this.access.authenticate(req.actor.token, req.workspace);
    return this.write.create(identity, {
      path: req.path,
      value: req.value,
      isSecret: req.is_secret,
      description: req.description,
    });
  }

  @HandleRequest(contract.updateVariable)
  async update(@Payload() req: Req<'updateVariable'>): Promise<Variable> {
    const identity = await this.access.authenticate(req.actor.token, req.workspace);
    return this.write.update(identity, req.path, {
      newPath: req.new_path,
      value: req.value,
      isSecret: req.is_secret,
      description: req.description,
    });
  }

  @HandleRequest(contract.deleteVariable)
  async delete(@Payload() req: Req<'deleteVariable'>): Promise<{ deleted: true }> {
    await this.write.delete(await this.access.authenticate(req.actor.token, req.workspace), req.path);
    return { deleted: true };
  }

  @HandleRequest(contract.listVariables)
  async list(@Payload() req: Req<'listVariables'>): Promise<{ variables: Variable[] }> {
    return {
      variables: await this.read.list(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path_prefix,
      ),
    };
  }
}
