import type { ProcessRole } from '@flowmesh/contracts';
import {
  loadServiceConfig,
  startService,
  type OwnConfigSchema,
  type RunningService,
  type ServiceConfig,
  type ServiceDefinition,
} from '@flowmesh/bootstrap';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { createLogger, type LoggerOptions } from '@flowmesh/telemetry';
import type { z } from 'zod';
import { removeTestStreams, testStreamEnv } from '../mesh/test-streams.js';
import { testSubjectPrefix, withTestDatabase, type TestDatabase } from '../mesh/test-database.js';

export interface TestServiceOptions {
  readonly role?: ProcessRole;
  /** Settings on top of the test's own NATS_URL, DATABASE_URL, prefix and a free port. */
  readonly env?: Readonly<Record<string, string>>;
  /** Where the service's JSON log lines go (stdout when absent): a test that greps its logs passes a capturing stream. */
  readonly logDestination?: LoggerOptions['destination'];
}

export interface TestService<S extends OwnConfigSchema = OwnConfigSchema> {
  readonly running: RunningService;
  readonly config: ServiceConfig<z.output<S>>;
  /** The service's HTTP base URL. */
  readonly url: string;
  /** Its extra transport's address (the orchestrator's gRPC API) when it started one. */
  readonly extraAddress: string | undefined;
  /** A client on the service's subject prefix, for requests, events and work. */
  readonly client: MeshClient;
  readonly conn: MeshConnection;
  readonly database: TestDatabase;
  /** Stops the service gracefully, then drops its database and streams. */
  stop(): Promise<void>;
}

/**
 * One service started in this process by the same code as `main.ts` (config, Nest app, mesh
 * transport, HTTP), on a fresh database and subject prefix, with a client beside it.
 */
export async function startTestService<S extends OwnConfigSchema>(
  definition: ServiceDefinition<S>,
  options: TestServiceOptions = {},
): Promise<TestService<S>> {
  const natsUrl = requiredEnv('NATS_URL');
  const database = withTestDatabase(definition.name);
  const prefix = testSubjectPrefix(definition.name);
  const cleanup = () => Promise.allSettled([database.drop(), removeTestStreams(natsUrl, prefix)]);

  const config = loadServiceConfig(definition.name, definition.configSchema, {
    NATS_URL: natsUrl,
    DATABASE_URL: database.url,
    FLOWMESH_SUBJECT_PREFIX: prefix,
    FLOWMESH_ROLE: options.role ?? 'service',
    PORT: '0',
    LOG_LEVEL: process.env.DEBUG_SERVICE === '1' ? 'debug' : 'warn',
    ...testStreamEnv(),
    ...options.env,
  });
  const logger = createLogger({
    service: config.processName,
    level: config.logLevel,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });

  let running: RunningService;
  try {
    running = await startService(definition, { config, logger });
  } catch (error) {
    await cleanup();
    throw error;
  }
  const conn = await connectMesh({ url: natsUrl, name: `test-${definition.name}`, prefix });
  return {
    running,
    config,
    url: running.url,
    extraAddress: running.extraAddress,
    client: new MeshClient(conn),
    conn,
    database,
    stop: async () => {
      await conn.drain();
      await running.stop();
      await cleanup();
    },
  };
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set; run tests through vitest with libs/testing/vitest.config.ts`);
  return value;
}
