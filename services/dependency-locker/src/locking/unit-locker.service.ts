import { createHash } from 'node:crypto';
import {
  MeshError,
  npmLockText,
  parsePythonLockText,
  pythonLockText,
  TypescriptRequirementsSchema,
  type LockOwnerKind,
} from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { scanPythonImports } from '../imports/python-imports.js';
import {
  collectRequirements,
  LockInputError,
  type ImportScanner,
} from '../imports/requirements-collector.js';
import { scanTypescriptImports } from '../imports/typescript-imports.js';
import { TypescriptLocks } from '../locks/typescript-locks.service.js';
import { LockRecordRepository } from '../map/lock-record.repository.js';
import { PYTHON_LOCK_RESOLVER } from '../python/python-lock.tokens.js';
import type { PythonLockResolver } from '../python/python-lock.resolver.js';

export interface UnitToLock {
  readonly workspace: string;
  readonly ownerKind: LockOwnerKind;
  readonly ownerPath: string;
  readonly language: string;
  readonly content: string;
}

export interface LockedUnit {
  readonly lock: string;
  /** Workspace scripts the unit imports itself (its `relative_import` edges). */
  readonly directImports: string[];
}

/** The lock of a script without packages: nothing to resolve. */
const EMPTY_NPM_LOCK = {
  hash: createHash('sha256').update('{}').digest('hex'),
  requirements: {},
  lockfile: { lockfileVersion: 3, requires: true, packages: { '': {} } },
};

/**
 * Locks one unit of code: reads its imports (following workspace scripts through the code the
 * locker last saw deployed), then resolves the packages: npm for TypeScript (bun, deno, nativets;
 * kept per requirements, so a warm lock is a read), the python resolver for python3.
 */
@Injectable()
export class UnitLocker {
  constructor(
    private readonly typescript: TypescriptLocks,
    private readonly records: LockRecordRepository,
    @Inject(PYTHON_LOCK_RESOLVER) private readonly python: PythonLockResolver,
  ) {}

  async lock(unit: UnitToLock): Promise<LockedUnit> {
    const python = unit.language === 'python3';
    const scan: ImportScanner = python ? scanPythonImports : scanTypescriptImports;
    let collected;
    try {
      collected = await collectRequirements(
        { content: unit.content, place: { kind: unit.ownerKind, path: unit.ownerPath } },
        scan,
        async (path) => {
          const found = await this.records.script(unit.workspace, path);
          return found
            ? { language: found.language, content: found.content, version: found.ownerVersion }
            : undefined;
        },
      );
    } catch (error) {
      if (error instanceof LockInputError) throw new MeshError('VALIDATION_FAILED', error.message);
      throw error;
    }
    const { requirements, directImports, scripts } = collected;
    // The scripts it imports ride in the lock at the versions locked: workers run those.
    if (python) {
      const resolved = await this.python.resolve(requirements);
      // No requirements resolve to an empty lock, which may still name the scripts imported.
      const parsed = resolved === '' ? { pins: {} } : parsePythonLockText(resolved);
      const lock =
        parsed && Object.keys(scripts).length > 0 ? pythonLockText({ ...parsed, scripts }) : resolved;
      return { lock, directImports };
    }
    if (Object.keys(requirements).length === 0)
      return { lock: npmLockText(EMPTY_NPM_LOCK, scripts), directImports };
    const valid = TypescriptRequirementsSchema.safeParse(requirements);
    if (!valid.success)
      throw new MeshError(
        'VALIDATION_FAILED',
        valid.error.issues.map((i) => `requirements.${i.path.join('.')}: ${i.message}`).join('; '),
      );
    const { lock } = await this.typescript.lock(valid.data);
    return { lock: npmLockText(lock, scripts), directImports };
  }
}
