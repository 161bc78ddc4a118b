import { createLogger, shutdownTelemetry, startTelemetry, type Logger } from '@flowmesh/telemetry';
import { ConfigError } from '../config/config.error.js';
import { loadServiceConfig, type OwnConfigSchema } from '../config/service-config.js';
import { exitOnSignals } from './exit-on-signals.js';
import { MIGRATE_ONLY_FLAG, migrateOnly } from './migrate-only.js';
import { ProcessIdentity } from './process-identity.js';
import { startService } from './start-service.lazy.js';
import type { ServiceDefinition } from './service-definition.js';

/** sysexits.h EX_CONFIG: the process cannot run as configured; restarting will not help. */
export const EXIT_CONFIG = 78;

/**
 * The whole life of a service process, called from its `main.ts`: parse configuration (one line
 * and exit 78 if wrong), start telemetry before Nest and the drivers load, start the service,
 * then stop it gracefully on SIGTERM/SIGINT within FLOWMESH_SHUTDOWN_TIMEOUT_MS.
 */
export async function bootstrapService<S extends OwnConfigSchema>(
  definition: ServiceDefinition<S>,
): Promise<void> {
  if (process.argv.includes(MIGRATE_ONLY_FLAG)) return runMigrations(definition);
  let config;
  try {
    config = loadServiceConfig(definition.name, definition.configSchema, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.describe(`flowmesh ${definition.name}`)}\n`);
    process.exit(EXIT_CONFIG);
  }

  const meshProcessName = config.processName;
  const identity = new ProcessIdentity(config.service, meshProcessName, config.role, definition.version);
  await startTelemetry({
    serviceName: meshProcessName,
    serviceVersion: definition.version,
    instanceId: identity.instanceId,
  });
  const logger = createLogger({
    service: meshProcessName,
    level: config.logLevel,
    bindings: { version: definition.version },
  });
  exitOnFatalErrors(logger);

  let running;
  try {
    running = await startService(definition, { config, logger, identity });
  } catch (error) {
    logger.fatal(
      { err: error },
      `could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
    await shutdownTelemetry();
    process.exit(1);
  }

  exitOnSignals({
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    stop: async () => {
      await running.stop();
      await shutdownTelemetry();
    },
  });
}

/** `--migrate-only`: apply the migrations, exit 0; a failure is one line and exit 1 (78 if misconfigured). */
async function runMigrations<S extends OwnConfigSchema>(definition: ServiceDefinition<S>): Promise<never> {
  const logger = createLogger({ service: `${definition.name}-migrate`, level: 'info' });
  try {
    await migrateOnly(definition, process.env, logger);
    process.exit(0);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.describe(`flowmesh ${definition.name} ${MIGRATE_ONLY_FLAG}`)}\n`);
      process.exit(EXIT_CONFIG);
    }
    logger.fatal(
      { err: error },
      `migrations failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  }
}

/** A crash is logged as one JSON line like everything else, then the process exits 1. */
function exitOnFatalErrors(logger: Logger): void {
  const die = (kind: string) => (error: unknown) => {
    logger.fatal({ err: error }, `${kind}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  };
  process.on('uncaughtException', die('uncaught exception'));
  process.on('unhandledRejection', die('unhandled rejection'));
}
