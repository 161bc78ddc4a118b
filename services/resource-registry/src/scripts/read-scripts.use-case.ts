import { MeshError, type CallerIdentity, type Script } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { toListedScript, toScript } from './script.mapper.js';
import { ScriptRepository } from './script.repository.js';

const READ = { domain: 'scripts', action: 'read' } as const;

/** Reads of scripts: the current version by path, any version by path and hash, or by hash alone. */
@Injectable()
export class ReadScriptsUseCase {
  constructor(
    private readonly access: AccessService,
    private readonly scripts: ScriptRepository,
    private readonly transactions: ItemTransactions,
  ) {}

  async get(identity: CallerIdentity, path: string, hash?: string): Promise<Script> {
    const message = hash ? versionNotFound(hash, path) : notFoundMessage(path);
    await this.access.assertCanRead(identity, path, READ, message);
    const manager = this.transactions.manager;
    const script = await this.scripts.findScript(manager, identity.workspace, path);
    const version =
      script && (await this.scripts.findVersion(manager, identity.workspace, hash ?? script.currentHash));
    if (!script || !version || version.path !== path) throw new MeshError('NOT_FOUND', message, { path });
    return toScript(script, version);
  }

  async getByHash(identity: CallerIdentity, hash: string): Promise<Script> {
    const message = versionNotFound(hash);
    const manager = this.transactions.manager;
    const version = await this.scripts.findVersion(manager, identity.workspace, hash);
    if (!version) throw new MeshError('NOT_FOUND', message, { hash });
    await this.access.assertCanRead(identity, version.path, READ, message);
    const script = await this.scripts.findScript(manager, identity.workspace, version.path);
    if (!script) throw new MeshError('NOT_FOUND', message, { hash });
    return toScript(script, version);
  }

  async exists(identity: CallerIdentity, path: string): Promise<boolean> {
    if (!(await this.access.canRead(identity, path, 'scripts'))) return false;
    return (await this.scripts.findScript(this.transactions.manager, identity.workspace, path)) !== null;
  }

  async list(identity: CallerIdentity, pathPrefix: string | undefined) {
    const readable = await this.access.readFilter(identity, 'scripts');
    const rows = await this.scripts.list(this.transactions.manager, identity.workspace, pathPrefix);
    return rows.filter((row) => readable(row.script.path)).map(toListedScript);
  }

  async listVersions(identity: CallerIdentity, path: string) {
    await this.access.assertCanRead(identity, path, READ, notFoundMessage(path));
    const versions = await this.scripts.listVersions(this.transactions.manager, identity.workspace, path);
    if (versions.length === 0) throw new MeshError('NOT_FOUND', notFoundMessage(path), { path });
    return versions.map((version) => ({
      hash: version.hash,
      parent_hash: version.parentHash,
      created_by: version.createdBy,
      created_at: version.createdAt.toISOString(),
    }));
  }
}

export function notFoundMessage(path: string): string {
  return `script ${path} not found`;
}

function versionNotFound(hash: string, path?: string): string {
  return path ? `script ${path} has no version ${hash}` : `script version ${hash} not found`;
}
