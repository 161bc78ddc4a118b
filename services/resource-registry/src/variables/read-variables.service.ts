import { MeshError, type CallerIdentity, type Variable } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { SecretCipher } from '../secrets/secret-cipher.js';
import { plaintextOf } from './variable-content.js';
import type { VariableEntity } from './variable.entity.js';
import { toVariable } from './variable.mapper.js';
import { VariableRepository } from './variable.repository.js';

const READ = { domain: 'variables', action: 'read' } as const;

/**
 * Reads of variables. A secret is decrypted only for a caller who may read its path, and only in
 * `get` (unless asked not to) and `getValue`; a list never carries a secret's value.
 */
@Injectable()
export class ReadVariablesService {
  constructor(
    private readonly access: AccessService,
    private readonly variables: VariableRepository,
    private readonly cipher: SecretCipher,
    private readonly transactions: ItemTransactions,
  ) {}

  async get(identity: CallerIdentity, path: string, decryptSecret = true): Promise<Variable> {
    const row = await this.require(identity, path);
    return toVariable(row, row.isSecret && !decryptSecret ? undefined : plaintextOf(this.cipher, row));
  }

  async getValue(identity: CallerIdentity, path: string): Promise<string> {
    return plaintextOf(this.cipher, await this.require(identity, path));
  }

  async exists(identity: CallerIdentity, path: string): Promise<boolean> {
    if (!(await this.access.canRead(identity, path, 'variables'))) return false;
    return this.variables.exists(this.transactions.manager, identity.workspace, path);
  }

  async list(identity: CallerIdentity, pathPrefix: string | undefined): Promise<Variable[]> {
    const readable = await this.access.readFilter(identity, 'variables');
    const rows = await this.variables.list(this.transactions.manager, identity.workspace, pathPrefix);
    return rows
      .filter((row) => readable(row.path))
      .map((row) => toVariable(row, row.isSecret ? undefined : (row.value ?? '')));
  }

  private async require(identity: CallerIdentity, path: string): Promise<VariableEntity> {
    // The check and the read go to Postgres together; the row is used only once the check passed.
    const [, row] = await Promise.all([
      this.access.assertCanRead(identity, path, READ, notFoundMessage(path)),
      this.variables.find(this.transactions.manager, identity.workspace, path),
    ]);
    if (!row) throw new MeshError('NOT_FOUND', notFoundMessage(path), { path });
    return row;
  }
}

export function notFoundMessage(path: string): string {
  return `variable ${path} not found`;
}
