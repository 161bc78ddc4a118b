import type { ServiceName } from '@flowmesh/contracts';
import type { Logger } from '@flowmesh/telemetry';
import type { DynamicModule } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { CustomTransportStrategy } from '@nestjs/microservices';
import type { DataSourceOptions } from 'typeorm';
import type { z } from 'zod';
import type { OwnConfigSchema, ServiceConfig } from '../config/service-config.js';

export type MigrationList = NonNullable<DataSourceOptions['migrations']>;

/** What a module factory gets besides configuration. */
export interface ModuleContext {
  /** The process's logger; hand it to libraries that log (persistence) so every line matches. */
  readonly logger: Logger;
}

export type ModuleFactory<S extends OwnConfigSchema> = (
  config: ServiceConfig<z.output<S>>,
  context: ModuleContext,
) => DynamicModule | Promise<DynamicModule>;

/** What a service's `main.ts` hands to `bootstrapService`. */
export interface ServiceDefinition<S extends OwnConfigSchema> {
  readonly name: ServiceName;
  /** From the service's package.json (`packageVersion(import.meta.url)`). */
  readonly version: string;
  /** The service's own settings (`z.object({})` when it has none yet); the common ones are always read. */
  readonly configSchema: S;
  /**
   * The service's root module. A factory, called after configuration is parsed and telemetry
   * started; `main.ts` imports the module inside it so HTTP and pg load after instrumentation.
   */
  readonly rootModule: ModuleFactory<S>;
  /** The module of the worker role (`FLOWMESH_ROLE=worker`), for a service that has one. */
  readonly workerModule?: ModuleFactory<S>;
  /**
   * A server of another transport beside HTTP and NATS (the orchestrator's gRPC API), serving the
   * same app's handlers, started after the mesh transport and stopped with it; none when absent
   * or when it returns undefined (that role or configuration serves none).
   */
  readonly extraTransport?: (config: ServiceConfig<z.output<S>>) => Promise<ExtraTransport | undefined>;
  /**
   * The service's migrations, for `main.js --migrate-only` (the chart's migrations Job); a start
   * applies them too. Imported on demand like the module.
   */
  readonly migrations?: () => Promise<MigrationList>;
  /** The largest JSON request body HTTP accepts, in bytes; Express's default (100 KB) when absent. */
  readonly httpBodyLimitBytes?: (config: ServiceConfig<z.output<S>>) => number;
  /**
   * Called with the HTTP app before its body parsers are registered: a service that reads some
   * requests' bodies itself (raw bytes, to check a signature over them) mounts its reader here.
   */
  readonly configureHttp?: (app: NestExpressApplication, config: ServiceConfig<z.output<S>>) => Promise<void>;
}

/** A transport started beside the mesh transport (see `ServiceDefinition.extraTransport`). */
export interface ExtraTransport extends CustomTransportStrategy {
  /** Where it listens once started (`127.0.0.1:50051`, the real port when 0 was asked). */
  address(): string | undefined;
  /** Called first on a graceful stop: say "not serving" to health checks, refuse new calls. */
  markStopping(): void;
}
