import { findMeshProcess, processPingContract } from '@flowmesh/contracts';
import { MESH_CONNECTION, MeshClient, MeshTransport, type MeshConnection } from '@flowmesh/messaging';
import type { Logger } from '@flowmesh/telemetry';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Server } from 'node:http';
import type { z } from 'zod';
import type { OwnConfigSchema, ServiceConfig } from '../config/service-config.js';
import { LifecycleHealthIndicator } from '../health/lifecycle.health-indicator.js';
import { serviceHeaderMiddleware } from '../http/service-header.middleware.js';
import { jsonDepthGuard } from '../http/json-depth.guard.js';
import { ProcessIdentity } from './process-identity.js';
import type { ServiceDefinition } from './service-definition.js';
import { ServiceNestLogger } from './service-nest.logger.js';
import { ServiceRuntimeModule } from './service-runtime.module.js';

export interface StartServiceOptions<S extends OwnConfigSchema> {
  readonly config: ServiceConfig<z.output<S>>;
  readonly logger: Logger;
  readonly identity?: ProcessIdentity;
}

export interface RunningService {
  readonly app: INestApplication;
  /** `http://127.0.0.1:8103`, with the real port when the configured one was 0. */
  readonly url: string;
  /** The extra transport's address (`127.0.0.1:50051`) when the service started one. */
  readonly extraAddress: string | undefined;
  readonly identity: ProcessIdentity;
  /**
   * Graceful stop: readiness off, stop taking messages and requests while in-flight ones finish
   * (or go back to JetStream), drain NATS, then close Postgres. Safe to call more than once.
   */
  stop(): Promise<void>;
}

/**
 * Builds and starts one service process: its Nest app with health and ping around the
 * service's module, the mesh transport serving its handlers, HTTP on the configured port.
 * No signal handling and no exits: `bootstrapService` adds those, tests call this directly.
 */
export async function startService<S extends OwnConfigSchema>(
  definition: ServiceDefinition<S>,
  options: StartServiceOptions<S>,
): Promise<RunningService> {
  const { config, logger } = options;
  const meshProcess = findMeshProcess(config.service, config.role);
  const moduleFactory = config.role === 'worker' ? definition.workerModule : definition.rootModule;
  if (!meshProcess || !moduleFactory) throw new Error(`${config.service} has no ${config.role} role`);
  const identity =
    options.identity ??
    new ProcessIdentity(config.service, meshProcess.name, meshProcess.role, definition.version);

  const app = await NestFactory.create<NestExpressApplication>(
    ServiceRuntimeModule.forRoot({
      config,
      identity,
      pingContract: processPingContract(meshProcess),
      rootModule: await moduleFactory(config, { logger }),
    }),
    // abortOnError off: a failed start reaches our caller as an error instead of an exit.
    { logger: new ServiceNestLogger(logger), abortOnError: false },
  );
  app.disable('x-powered-by');
  const bodyLimit = definition.httpBodyLimitBytes?.(config) ?? config.http.bodyLimitBytes;
  await definition.configureHttp?.(app, config);
  // Registered before init, it takes the place of Nest's default JSON parser. Not strict: any
  // JSON value is a body (a resume payload may be a string, a number or null, as in Windmill);
  // each route's validation says what it takes.
  app.useBodyParser('json', { limit: bodyLimit, strict: false });
  app.use(jsonDepthGuard());
  app.use(serviceHeaderMiddleware(config.service));

  const conn = app.get<MeshConnection>(MESH_CONNECTION);
  app.get(MeshClient).setRetryWindow(config.nats.requestRetryMs);
  const transport = new MeshTransport(conn, {
    service: meshProcess.name,
    // In-flight handlers get most of the shutdown budget; draining and closing need the rest.
    shutdownGraceMs: Math.floor(config.shutdownTimeoutMs * 0.6),
    // Drained below, after HTTP requests (which may send over NATS) have finished too.
    drainOnClose: false,
    streams: config.streams,
  });
  app.connectMicroservice({ strategy: transport }, { inheritAppConfig: true });
  const extra = await definition.extraTransport?.(config);
  if (extra) app.connectMicroservice({ strategy: extra }, { inheritAppConfig: true });

  try {
    await app.init();
    await app.startAllMicroservices();
    await app.listen(config.http.port, config.http.host);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const url = await app.getUrl();
  const extraAddress = extra?.address();

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      app.get(LifecycleHealthIndicator).markStopping();
      extra?.markStopping();
      // The transport itself, not Nest's microservice wrapper: closing the wrapper on its own
      // would run every shutdown hook (closing Postgres) while requests are still in flight.
      await Promise.all([transport.close(), closeHttpServer(app.getHttpServer()), extra?.close()]);
      await conn.drain();
      // Runs the remaining shutdown hooks: persistence closes Postgres here.
      await app.close();
    })();
    return stopping;
  };

  logger.info(
    { url, ...(extraAddress ? { extraAddress } : {}), instanceId: identity.instanceId, role: identity.role },
    `ready: ${url}${extraAddress ? ` and ${extraAddress}` : ''} (${identity.processName} ${identity.version})`,
  );
  return { app, url, extraAddress, identity, stop };
}

/** Stops accepting connections and waits for in-flight requests; idle keep-alives close now. */
function closeHttpServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
