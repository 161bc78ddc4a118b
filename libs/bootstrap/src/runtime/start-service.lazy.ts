import type { OwnConfigSchema } from '../config/service-config.js';
import type { RunningService, StartServiceOptions } from './start-service.js';
import type { ServiceDefinition } from './service-definition.js';

/**
 * `startService`, loading Nest only when called: importing `@flowmesh/bootstrap` must not load
 * Nest, express or the drivers before `bootstrapService` has started telemetry.
 */
export async function startService<S extends OwnConfigSchema>(
  definition: ServiceDefinition<S>,
  options: StartServiceOptions<S>,
): Promise<RunningService> {
  const { startService: start } = await import('./start-service.js');
  return start(definition, options);
}
