import {
  registryItemsContract as contract,
  type CallerIdentity,
  type RequestOf,
  type Script,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ReadScriptsUseCase } from './read-scripts.use-case.js';
import { WriteScriptsUseCase, type SavedScript } from './write-scripts.use-case.js';

/** `registry.script.*` over NATS. */
@Controller()
export class ScriptsHandler {
  constructor(
    private readonly read: ReadScriptsUseCase,
    private readonly write: WriteScriptsUseCase,
  ) {}

  @HandleRequest(contract.getScript)
  async get(
    @Payload() req: RequestOf<typeof contract.getScript>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Script> {
    return this.read.get(identity, req.path, req.hash);
  }

  @HandleRequest(contract.getScriptByHash)
  async getByHash(
    @Payload() req: RequestOf<typeof contract.getScriptByHash>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Script> {
    return this.read.getByHash(identity, req.hash);
  }

  @HandleRequest(contract.scriptExists)
  async exists(
    @Payload() req: RequestOf<typeof contract.scriptExists>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ exists: boolean }> {
    return {
      exists: await this.read.exists(identity, req.path),
    };
  }

  @HandleRequest(contract.createScript)
  async create(
    @Payload() req: RequestOf<typeof contract.createScript>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<SavedScript> {
    return this.write.create(identity, req.path, scriptInput(req));
  }

  @HandleRequest(contract.updateScript)
  async update(
    @Payload() req: RequestOf<typeof contract.updateScript>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<SavedScript> {
    return this.write.update(identity, req.path, { ...scriptInput(req), parentHash: req.parent_hash });
  }

  @HandleRequest(contract.deleteScript)
  async delete(
    @Payload() req: RequestOf<typeof contract.deleteScript>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ deleted: true }> {
    await this.write.delete(identity, req.path);
    return { deleted: true };
  }

  @HandleRequest(contract.listScripts)
  async list(@Payload() req: RequestOf<typeof contract.listScripts>, @MeshCaller() identity: CallerIdentity) {
    return {
      scripts: await this.read.list(identity, req.path_prefix),
    };
  }

  @HandleRequest(contract.listScriptVersions)
  async listVersions(
    @Payload() req: RequestOf<typeof contract.listScriptVersions>,
    @MeshCaller() identity: CallerIdentity,
  ) {
    return {
      versions: await this.read.listVersions(identity, req.path),
    };
  }
}

function scriptInput(req: RequestOf<typeof contract.createScript>) {
  return {
    language: req.language,
    content: req.content,
    lock: req.lock,
    schema: req.schema,
    summary: req.summary,
    description: req.description,
  };
}
