import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { TypeOrmModule, type TypeOrmModuleOptions } from '@nestjs/typeorm';
import type { DataSourceOptions, EntitySchema } from 'typeorm';
import { DatabaseUnavailableError } from './database-unavailable.error.js';
import type { ServiceDataSourceOptions } from './persistence-options.js';
import { prepareDatabase } from './prepare-database.js';

export interface PersistenceModuleOptions extends ServiceDataSourceOptions {
  /** Start-up attempts while Postgres is unreachable (default 3, 2 s apart); other errors fail at once. */
  connectAttempts?: number;
}

export interface PersistenceModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  inject?: Array<string | symbol | (abstract new (...args: never[]) => unknown)>;
  /** Method syntax on purpose: a factory typed `(config: AppConfig) => ...` must fit. */
  useFactory(...deps: unknown[]): PersistenceModuleOptions | Promise<PersistenceModuleOptions>;
}

type EntityClassOrSchema = (new (...args: never[]) => object) | EntitySchema;

// Our options ride inside the object @nestjs/typeorm hands to `dataSourceFactory`.
type OptionsCarrier = TypeOrmModuleOptions & { flowmesh: PersistenceModuleOptions };

const RETRY_DELAY_MS = 2_000;

/**
 * The service's `DataSource`, prepared (database, schema, migrations) during Nest's init
 * and destroyed on shutdown. Built on @nestjs/typeorm, so the `DataSource` class is the
 * injection token and `PersistenceModule.forFeature([Entity])` + `@InjectRepository(Entity)`
 * work as in any Nest app.
 */
@Module({})
export class PersistenceModule {
  static forRoot(options: PersistenceModuleOptions): DynamicModule {
    return PersistenceModule.forRootAsync({ useFactory: () => options });
  }

  static forRootAsync(options: PersistenceModuleAsyncOptions): DynamicModule {
    return {
      module: PersistenceModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          imports: options.imports,
          inject: options.inject,
          useFactory: async (...deps: unknown[]): Promise<OptionsCarrier> => {
            const flowmesh = await options.useFactory(...deps);
            return {
              type: 'postgres',
              retryAttempts: flowmesh.connectAttempts ?? 3,
              retryDelay: RETRY_DELAY_MS,
              verboseRetryLog: true,
              toRetry: (error: unknown) => error instanceof DatabaseUnavailableError,
              flowmesh,
            };
          },
          dataSourceFactory: async (typeOrmOptions?: DataSourceOptions) =>
            prepareDatabase((typeOrmOptions as OptionsCarrier).flowmesh),
        }),
      ],
      exports: [TypeOrmModule],
    };
  }

  /** Repositories for these entities, injectable with `@InjectRepository(Entity)`. */
  static forFeature(entities: EntityClassOrSchema[]): DynamicModule {
    return TypeOrmModule.forFeature(entities);
  }
}
