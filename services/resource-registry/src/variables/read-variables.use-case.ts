import { MeshError, type CallerIdentity, type Variable } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { ItemReadCache, type LoadedItem } from '../items/item-read.cache.js';
import { SecretCipher } from '../secrets/secret-cipher.js';
import { plaintextOf } from './variable-content.js';
import type { VariableEntity } from './variable.entity.js';
import { toVariable } from './variable.mapper.js';
import { VariableRepository, type StoredVariableContent } from './variable.repository.js';

const READ = { domain: 'variables', action: 'read' } as const;

/** What a variable's row weighs in the read cache, beside its value or ciphertext. */
const ROW_BYTES = 64;

/**
 * Reads of variables. A secret is decrypted only for a caller who may read its path, and only in
 * `get` (unless asked not to) and `getValue`; a list never carries a secret's value.
 */
@Injectable()
export class ReadVariablesUseCase {
  constructor(
    private readonly access: AccessService,
    private readonly variables: VariableRepository,
    private readonly cipher: SecretCipher,
    private readonly transactions: ItemTransactions,
    private readonly cache: ItemReadCache,
  ) {}

  async get(identity: CallerIdentity, path: string, decryptSecret = true): Promise<Variable> {
    const row = await this.require(identity, path);
    return toVariable(row, row.isSecret && !decryptSecret ? undefined : plaintextOf(this.cipher, row));
  }

  /**
   * The value as text (interpolation, `get_value`). The access check runs on every call; the row
   * comes from the read cache, a secret still sealed (it is opened here, per call).
   */
  async getValue(identity: CallerIdentity, path: string): Promise<string> {
    const [, row] = await Promise.all([
      this.access.assertCanRead(identity, path, READ, notFoundMessage(path)),
      this.cache.get('variable', identity.workspace, path, () => this.loadContent(identity.workspace, path)),
    ]);
    if (!row) throw new MeshError('NOT_FOUND', notFoundMessage(path), { path });
    return plaintextOf(this.cipher, row);
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

  private async loadContent(workspace: string, path: string): Promise<LoadedItem<StoredVariableContent>> {
    const row = await this.variables.findContent(this.transactions.manager, workspace, path);
    const size = ROW_BYTES + path.length + (row?.value?.length ?? 0) + (row?.ciphertext?.length ?? 0);
    // Shallow: a Buffer cannot be frozen, and nothing writes to it (opening a secret only reads).
    return { row: row && Object.freeze(row), bytes: size };
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
