import { MeshError, type CallerIdentity } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AccessService } from '../access/access.service.js';
import { ItemEventWriter } from '../item-events/item-event.writer.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { DeployEventWriter } from '../locks/deploy-event.writer.js';
import { scriptParts } from '../locks/lockable-units.js';
import type { ItemsConfig } from '../items/items.config.js';
import { ITEMS_CONFIG } from '../items/items.tokens.js';
import { foundOrThrow, itemChange, writingItem } from '../items/item-write.util.js';
import { assertWithinLimit, jsonByteLength } from '../items/value-size.util.js';
import type { WriteOptions } from '../items/write-options.js';
import { notFoundMessage } from './read-scripts.use-case.js';
import { scriptHash } from './script-hash.util.js';
import { ScriptRepository } from './script.repository.js';

const WRITE = { domain: 'scripts', action: 'write' } as const;

export interface ScriptInput {
  readonly language: string;
  readonly content: string;
  readonly lock?: string | null;
  readonly schema?: Record<string, unknown> | null;
  readonly summary: string;
  readonly description?: string | null;
}

export interface SavedScript {
  readonly path: string;
  readonly hash: string;
  /** Whether a new version row was written (false when the code hashed to an existing version). */
  readonly created: boolean;
}

/**
 * Saves scripts as immutable versions. `create` starts a path; `update` makes the given code the
 * current version: a new version row, or an earlier one made current again when the code hashes
 * to it. Labels change in place. Each save is one transaction with its event.
 */
@Injectable()
export class WriteScriptsUseCase {
  constructor(
    private readonly access: AccessService,
    private readonly scripts: ScriptRepository,
    private readonly events: ItemEventWriter,
    private readonly transactions: ItemTransactions,
    private readonly deploys: DeployEventWriter,
    @Inject(ITEMS_CONFIG) private readonly config: ItemsConfig,
  ) {}

  async create(
    identity: CallerIdentity,
    path: string,
    input: ScriptInput,
    options: WriteOptions = {},
  ): Promise<SavedScript> {
    await this.access.assertCanCreate(identity, path, WRITE);
    this.assertSize(path, input);
    const hash = scriptHash(code(path, input));
    return this.transactions.run(options.manager, async (manager) => {
      if (await this.scripts.findScript(manager, identity.workspace, path)) {
        throw new MeshError('CONFLICT', `script ${path} already exists; save a new version with update`, {
          path,
        });
      }
      const created = await this.saveVersion(manager, identity, path, hash, input, null);
      await writingItem(
        'script',
        path,
        () =>
          this.scripts.insertScript(manager, {
            workspaceId: identity.workspace,
            path,
            currentHash: hash,
            summary: input.summary,
            description: input.description ?? null,
            createdBy: identity.username,
            editedBy: identity.username,
          }),
        'content',
      );
      await this.record(manager, identity, 'created', path, hash);
      await this.deployed(manager, identity, path, hash, input);
      return { path, hash, created };
    });
  }

  async update(
    identity: CallerIdentity,
    path: string,
    input: ScriptInput & { parentHash?: string },
    options: WriteOptions = {},
  ): Promise<SavedScript> {
    await this.access.assertCanWrite(identity, path, WRITE, notFoundMessage(path));
    this.assertSize(path, input);
    const hash = scriptHash(code(path, input));
    return this.transactions.run(options.manager, async (manager) => {
      const script = foundOrThrow(
        await this.scripts.findScriptForUpdate(manager, identity.workspace, path),
        path,
        notFoundMessage(path),
      );
      if (input.parentHash !== undefined && input.parentHash !== script.currentHash) {
        throw new MeshError(
          'CONFLICT',
          `script ${path} changed since version ${input.parentHash}: its current version is ${script.currentHash}`,
          { path, current: script.currentHash },
        );
      }
      const description = input.description === undefined ? script.description : input.description;
      const unchanged =
        hash === script.currentHash && input.summary === script.summary && description === script.description;
      if (unchanged) return { path, hash, created: false };
      // No lock given: the previous version's stays until dependency-locker writes the new one, so
      // the path never holds a blank lock while a lock runs (Windmill #9588).
      const carried =
        (input.lock ?? null) === null
          ? {
              ...input,
              lock:
                (await this.scripts.findVersion(manager, identity.workspace, script.currentHash))?.lock ??
                null,
            }
          : input;
      const created =
        hash === script.currentHash
          ? false
          : await this.saveVersion(manager, identity, path, hash, carried, script.currentHash);
      await this.scripts.updateScript(manager, {
        workspaceId: identity.workspace,
        path,
        currentHash: hash,
        summary: input.summary,
        description,
        editedBy: identity.username,
      });
      await this.record(manager, identity, 'updated', path, hash);
      if (hash !== script.currentHash) await this.deployed(manager, identity, path, hash, carried);
      return { path, hash, created };
    });
  }

  /**
   * Windmill's `scripts/create`: a new path, or a new version of one the caller can read. A path
   * the caller cannot read is treated as new, so the answer (PERMISSION_DENIED, or NOT_FOUND for
   * an unreadable folder) never tells whether something exists there.
   */
  async save(
    identity: CallerIdentity,
    path: string,
    input: ScriptInput & { parentHash?: string },
    options: WriteOptions = {},
  ): Promise<SavedScript> {
    const manager = options.manager ?? this.transactions.manager;
    const exists =
      (await this.access.canRead(identity, path, 'scripts')) &&
      (await this.scripts.findScript(manager, identity.workspace, path)) !== null;
    return exists ? this.update(identity, path, input, options) : this.create(identity, path, input, options);
  }

  async delete(identity: CallerIdentity, path: string, options: WriteOptions = {}): Promise<void> {
    await this.access.assertCanWrite(identity, path, WRITE, notFoundMessage(path));
    await this.transactions.run(options.manager, async (manager) => {
      foundOrThrow(
        await this.scripts.findScriptForUpdate(manager, identity.workspace, path),
        path,
        notFoundMessage(path),
      );
      await this.scripts.deleteScript(manager, identity.workspace, path);
      await this.record(manager, identity, 'deleted', path);
      await this.deploys.deleted(manager, {
        workspace: identity.workspace,
        ownerKind: 'script',
        path,
        by: identity.username,
      });
    });
  }

  /** dependency-locker locks the new current version (its lock is written back onto that hash). */
  private deployed(
    manager: EntityManager,
    identity: CallerIdentity,
    path: string,
    hash: string,
    input: ScriptInput,
  ): Promise<void> {
    return this.deploys.saved(manager, {
      workspace: identity.workspace,
      ownerKind: 'script',
      path,
      version: hash,
      parts: scriptParts(input.language, input.content, input.lock ?? null),
      by: identity.username,
    });
  }

  private saveVersion(
    manager: EntityManager,
    identity: CallerIdentity,
    path: string,
    hash: string,
    input: ScriptInput,
    parentHash: string | null,
  ): Promise<boolean> {
    return writingItem(
      'script',
      path,
      () =>
        this.scripts.insertVersion(manager, {
          workspaceId: identity.workspace,
          hash,
          path,
          parentHash,
          language: input.language,
          content: input.content,
          lock: input.lock ?? null,
          schema: input.schema ?? null,
          createdBy: identity.username,
        }),
      'content',
    );
  }

  private async record(
    manager: EntityManager,
    identity: CallerIdentity,
    change: 'created' | 'updated' | 'deleted',
    path: string,
    hash?: string,
  ): Promise<void> {
    await this.events.record(manager, {
      ...itemChange('script', change, identity, path),
      ...(hash ? { hash } : {}),
    });
  }

  private assertSize(path: string, input: ScriptInput): void {
    const bytes =
      Buffer.byteLength(input.content, 'utf8') +
      Buffer.byteLength(input.lock ?? '', 'utf8') +
      (input.schema ? jsonByteLength(input.schema) : 0);
    assertWithinLimit(`script ${path} (content, lock and schema)`, bytes, this.config.maxValueBytes);
  }
}

function code(path: string, input: ScriptInput) {
  return {
    path,
    language: input.language,
    content: input.content,
    lock: input.lock ?? null,
    schema: input.schema ?? null,
  };
}
