import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import { LockEventsPublisher } from './cascade/lock-events.publisher.js';
import { LockJobRepository } from './cascade/lock-job.repository.js';
import { LockJobRunner } from './cascade/lock-job.runner.js';
import { LockOwnerService } from './cascade/lock-owner.service.js';
import { LOCKER_SETTINGS, type DependencyLockerConfig } from './dependency-locker.config.js';
import { DeploysListener } from './deploys/deploys.listener.js';
import { DeploysService } from './deploys/deploys.service.js';
import { UnitLocker } from './locking/unit-locker.service.js';
import { LockfileRepository } from './locks/lockfile.repository.js';
import { LocksHandler } from './locks/locks.handler.js';
import { TypescriptLocks } from './locks/typescript-locks.service.js';
import { DependencyEdgeRepository } from './map/dependency-edge.repository.js';
import { LockRecordRepository } from './map/lock-record.repository.js';
import { RebuildDepmapHandler } from './map/rebuild-depmap.handler.js';
import { ToolRevalidationRepository } from './revalidation/tool-revalidation.repository.js';
import { DEPENDENCY_LOCKER_MIGRATIONS } from './migrations/index.js';
import { pythonLockResolver } from './python/python-lock.resolver.js';
import { PYTHON_LOCK_RESOLVER } from './python/python-lock.tokens.js';
import { LockStatusHandler } from './status/lock-status.handler.js';

/** Postgres schema that holds dependency-locker's tables; no other service reads it. */
export const DEPENDENCY_LOCKER_SCHEMA = SERVICE_SCHEMAS['dependency-locker'];

/**
 * dependency-locker: locks of scripts', flow steps' and agent tools' dependencies, made on deploy
 * and written back into the items; the dependency map; cascades over it on redeploy.
 */
@Module({})
export class DependencyLockerModule {
  static forRoot(config: DependencyLockerConfig, logger: Logger): DynamicModule {
    return {
      module: DependencyLockerModule,
      imports: [
        MessagingModule.forRoot({
          url: config.nats.url,
          name: config.processName,
          prefix: config.subjectPrefix,
        }),
        PersistenceModule.forRoot({
          databaseUrl: config.database.url,
          schema: DEPENDENCY_LOCKER_SCHEMA,
          entities: [],
          migrations: DEPENDENCY_LOCKER_MIGRATIONS,
          logger: logger.child({ component: 'persistence' }),
        }),
      ],
      controllers: [LocksHandler, DeploysListener, LockStatusHandler, RebuildDepmapHandler],
      providers: [
        { provide: LOCKER_SETTINGS, useValue: config.locker },
        {
          provide: PYTHON_LOCK_RESOLVER,
          useFactory: () => pythonLockResolver(config.locker.python, config.locker.timeoutMs),
        },
        LockfileRepository,
        TypescriptLocks,
        LockRecordRepository,
        DependencyEdgeRepository,
        ToolRevalidationRepository,
        LockJobRepository,
        LockEventsPublisher,
        UnitLocker,
        LockOwnerService,
        LockJobRunner,
        DeploysService,
      ],
    };
  }
}
