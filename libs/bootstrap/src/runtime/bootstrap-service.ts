import { createLogger, shutdownTelemetry, startTelemetry, type Logger } from '@flowmesh/telemetry';
import { ConfigError } from '../config/config.error.js';
import { loadServiceConfig, type OwnConfigSchema } from '../config/service-config.js';
import { exitOnSignals } from './exit-on-signals.js';
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

/** A crash is logged as one JSON line like everything else, then the process exits 1. */
function exitOnFatalErrors(logger: Logger): void {
  const die = (kind: string) => (error: unknown) => {
    logger.fatal({ err: error }, `${kind}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  };
  process.on('uncaughtException', die('uncaught exception'));
  process.on('unhandledRejection', die('unhandled rejection'));
}
