import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import { LOCKER_SETTINGS, type DependencyLockerConfig } from './dependency-locker.config.js';
import { LockfileRepository } from './locks/lockfile.repository.js';
import { LocksHandler } from './locks/locks.handler.js';
import { TypescriptLocks } from './locks/typescript-locks.service.js';
import { DEPENDENCY_LOCKER_MIGRATIONS } from './migrations/index.js';

/** Postgres schema that holds dependency-locker's tables; no other service reads it. */
export const DEPENDENCY_LOCKER_SCHEMA = SERVICE_SCHEMAS['dependency-locker'];

/** dependency-locker: locks of scripts' dependencies, resolved once and kept. */
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
      controllers: [LocksHandler],
      providers: [{ provide: LOCKER_SETTINGS, useValue: config.locker }, LockfileRepository, TypescriptLocks],
    };
  }
}
