import { registryItemsContract as contract, type Script } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { ReadScriptsService } from './read-scripts.service.js';
import { WriteScriptsService, type SavedScript } from './write-scripts.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

/** `registry.script.*` over NATS. */
@Controller()
export class ScriptsHandler {
  constructor(
    private readonly access: AccessService,
    private readonly read: ReadScriptsService,
    private readonly write: WriteScriptsService,
  ) {}

  @HandleRequest(contract.getScript)
  async get(@Payload() req: Req<'getScript'>): Promise<Script> {
    return this.read.get(await this.access.authenticate(req.actor.token, req.workspace), req.path, req.hash);
  }

  @HandleRequest(contract.getScriptByHash)
  async getByHash(@Payload() req: Req<'getScriptByHash'>): Promise<Script> {
    return this.read.getByHash(await this.access.authenticate(req.actor.token, req.workspace), req.hash);
  }

  @HandleRequest(contract.scriptExists)
  async exists(@Payload() req: Req<'scriptExists'>): Promise<{ exists: boolean }> {
    return {
      exists: await this.read.exists(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path,
      ),
    };
  }

  @HandleRequest(contract.createScript)
  async create(@Payload() req: Req<'createScript'>): Promise<SavedScript> {
    return this.write.create(
      await this.access.authenticate(req.actor.token, req.workspace),
      req.path,
      scriptInput(req),
    );
  }

  @HandleRequest(contract.updateScript)
  async update(@Payload() req: Req<'updateScript'>): Promise<SavedScript> {
    const identity = await this.access.authenticate(req.actor.token, req.workspace);
    return this.write.update(identity, req.path, { ...scriptInput(req), parentHash: req.parent_hash });
  }

  @HandleRequest(contract.deleteScript)
  async delete(@Payload() req: Req<'deleteScript'>): Promise<{ deleted: true }> {
    await this.write.delete(await this.access.authenticate(req.actor.token, req.workspace), req.path);
    return { deleted: true };
  }

  @HandleRequest(contract.listScripts)
  async list(@Payload() req: Req<'listScripts'>) {
    return {
      scripts: await this.read.list(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path_prefix,
      ),
    };
  }

  @HandleRequest(contract.listScriptVersions)
  async listVersions(@Payload() req: Req<'listScriptVersions'>) {
    return {
      versions: await this.read.listVersions(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path,
      ),
    };
  }
}

function scriptInput(req: Req<'createScript'>) {
  return {
    language: req.language,
    content: req.content,
    lock: req.lock,
    schema: req.schema,
    summary: req.summary,
    description: req.description,
  };
}
