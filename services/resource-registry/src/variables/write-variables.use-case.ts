import { MeshError, type CallerIdentity, type Variable } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ItemEventWriter } from '../item-events/item-event.writer.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import type { ItemsConfig } from '../items/items.config.js';
import { ITEMS_CONFIG } from '../items/items.tokens.js';
import { foundOrThrow, itemAlreadyExists, itemChange, writingItem } from '../items/item-write.util.js';
import { assertWithinLimit } from '../items/value-size.util.js';
import type { WriteOptions } from '../items/write-options.js';
import { SecretCipher } from '../secrets/secret-cipher.js';
import { plaintextOf, variableContent } from './variable-content.js';
import { VariableEntity } from './variable.entity.js';
import { toVariable } from './variable.mapper.js';
import { VariableRepository } from './variable.repository.js';
import { notFoundMessage } from './read-variables.use-case.js';

const WRITE = { domain: 'variables', action: 'write' } as const;

export interface CreateVariableInput {
  readonly path: string;
  readonly value: string;
  readonly isSecret: boolean;
  readonly description?: string | null;
}

export interface UpdateVariableInput {
  readonly newPath?: string;
  readonly value?: string;
  readonly isSecret?: boolean;
  readonly description?: string | null;
}

/**
 * Creates, changes and deletes variables, with the event in the same transaction. A secret is
 * sealed before it reaches the repository and re-sealed when it moves (the ciphertext is bound
 * to its path) or was sealed under an older key. Replies carry a secret's value only to the
 * writer who just gave it. Variables are never versioned: an old secret must not linger.
 */
@Injectable()
export class WriteVariablesUseCase {
  constructor(
    private readonly access: AccessService,
    private readonly variables: VariableRepository,
    private readonly cipher: SecretCipher,
    private readonly events: ItemEventWriter,
    private readonly transactions: ItemTransactions,
    @Inject(ITEMS_CONFIG) private readonly config: ItemsConfig,
  ) {}

  async create(
    identity: CallerIdentity,
    input: CreateVariableInput,
    options: WriteOptions = {},
  ): Promise<Variable> {
    await this.access.assertCanCreate(identity, input.path, WRITE);
    this.assertSize(input.path, input.value);
    return this.transactions.run(options.manager, async (tx) => {
      if (await this.variables.exists(tx, identity.workspace, input.path))
        throw itemAlreadyExists('variable', input.path);
      const content = variableContent(
        this.cipher,
        { workspace: identity.workspace, path: input.path },
        input.value,
        input.isSecret,
      );
      const row = await writingItem('variable', input.path, () =>
        this.variables.insert(tx, {
          workspaceId: identity.workspace,
          path: input.path,
          ...content,
          description: input.description ?? null,
          createdBy: identity.username,
          editedBy: identity.username,
        }),
      );
      await this.events.record(tx, itemChange('variable', 'created', identity, row.path));
      return toVariable(row, input.isSecret ? undefined : input.value);
    });
  }

  async update(
    identity: CallerIdentity,
    path: string,
    input: UpdateVariableInput,
    options: WriteOptions = {},
  ): Promise<Variable> {
    const renamed = await this.access.assertCanUpdate(
      identity,
      path,
      input.newPath,
      WRITE,
      notFoundMessage(path),
    );
    if (input.value !== undefined) this.assertSize(renamed ?? path, input.value);
    return this.transactions.run(options.manager, async (tx) => {
      const before = foundOrThrow(
        await this.variables.findForUpdate(tx, identity.workspace, path),
        path,
        notFoundMessage(path),
      );
      if (before.isSecret && input.isSecret === false) {
        throw new MeshError(
          'VALIDATION_FAILED',
          `is_secret: variable ${path} is a secret and stays one; create a plain variable instead`,
          { issues: [{ path: 'is_secret', message: 'a secret cannot become a plain variable' }] },
        );
      }
      if (renamed && (await this.variables.exists(tx, identity.workspace, renamed)))
        throw itemAlreadyExists('variable', renamed);
      const isSecret = input.isSecret ?? before.isSecret;
      const newPath = renamed ?? path;
      const reseal =
        input.value !== undefined ||
        isSecret !== before.isSecret ||
        (isSecret && (renamed !== undefined || this.cipher.isStale(before.keyId ?? '')));
      const content = reseal
        ? variableContent(
            this.cipher,
            { workspace: identity.workspace, path: newPath },
            input.value ?? plaintextOf(this.cipher, before),
            isSecret,
          )
        : {
            isSecret: before.isSecret,
            value: before.value,
            keyId: before.keyId,
            ciphertext: before.ciphertext,
          };
      const after: VariableEntity = Object.assign(new VariableEntity(), before, content, {
        path: newPath,
        description: input.description === undefined ? before.description : input.description,
        editedBy: identity.username,
      });
      after.editedAt = await writingItem('variable', newPath, () => this.variables.update(tx, before, after));
      await this.events.record(
        tx,
        itemChange('variable', 'updated', identity, newPath, renamed ? path : undefined),
      );
      return toVariable(after, after.isSecret ? undefined : (after.value ?? ''));
    });
  }

  async delete(identity: CallerIdentity, path: string, options: WriteOptions = {}): Promise<void> {
    await this.access.assertCanWrite(identity, path, WRITE, notFoundMessage(path));
    await this.transactions.run(options.manager, async (tx) => {
      foundOrThrow(
        await this.variables.findForUpdate(tx, identity.workspace, path),
        path,
        notFoundMessage(path),
      );
      await this.variables.delete(tx, identity.workspace, path);
      await this.events.record(tx, itemChange('variable', 'deleted', identity, path));
    });
  }

  private assertSize(path: string, value: string): void {
    assertWithinLimit(
      `the value of variable ${path}`,
      Buffer.byteLength(value, 'utf8'),
      this.config.maxValueBytes,
    );
  }
}
