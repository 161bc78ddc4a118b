import { createLockerClient, createRegistryItemsClient } from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { SCRIPT_RUNNER_REGISTRY } from '../ports/script-runner.port.js';
import type { ScriptRunnersConfig } from './script-runners.config.js';
import { ScriptRunnersHost, type ScriptRunnersDeployment } from './script-runners.host.js';

/**
 * The script runners of a worker, bound to `SCRIPT_RUNNER_REGISTRY`: TypeScript (`bun`,
 * `bunnative`, `deno`, `nativets`) in warm threads, `python3` and `bash` as subprocesses,
 * `postgresql` against a resource. Give it to `EngineWorkerModule.forRoot`.
 */
@Module({})
export class ScriptRunnersModule {
  static forRoot(config: ScriptRunnersConfig, deployment: ScriptRunnersDeployment): DynamicModule {
    return {
      module: ScriptRunnersModule,
      providers: [
        {
          provide: ScriptRunnersHost,
          inject: [MeshClient],
          useFactory: async (mesh: MeshClient) => {
            const logger = new Logger(ScriptRunnersModule.name);
            const log = (level: 'warn' | 'log', message: string): void => logger[level](message);
            const scripts = createRegistryItemsClient(mesh);
            const host = await ScriptRunnersHost.start(
              config,
              { log, ...deployment },
              createLockerClient(mesh),
              (request) => scripts.getScript(request),
            );
            if (host.missing.length > 0) {
              logger.warn(`not found, so their languages are not served here: ${host.missing.join(', ')}`);
            }
            return host;
          },
        },
        {
          provide: SCRIPT_RUNNER_REGISTRY,
          useFactory: (host: ScriptRunnersHost) => host.registry,
          inject: [ScriptRunnersHost],
        },
      ],
      exports: [SCRIPT_RUNNER_REGISTRY],
    };
  }
}
