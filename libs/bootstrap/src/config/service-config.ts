import { MESH_PROCESSES, type MeshProcess, type ProcessRole, type ServiceName } from '@flowmesh/contracts';
import { z } from 'zod';
import {
  commonSettingsSchema,
  httpPortSchema,
  roleSchema,
  toCommonConfig,
  type CommonConfig,
} from './common-config.schema.js';
import { ConfigError, type ConfigProblem } from './config.error.js';
import { checkConfig, type ConfigResult, type Env } from './load-config.js';

/** A service's configuration: the common settings plus what its own schema produces. */
export type ServiceConfig<Own extends object = Record<never, never>> = CommonConfig & Readonly<Own>;

/** A service's own settings: an object schema keyed by variable name, usually transformed to a typed tree. */
export type OwnConfigSchema = z.ZodType<object>;

export const emptyConfigSchema = z.object({});

/**
 * Reads every setting of `service` from `env` at once, so an operator sees all problems in one
 * line instead of fixing them one restart at a time.
 */
export function loadServiceConfig<S extends OwnConfigSchema>(
  service: ServiceName,
  ownSchema: S,
  env: Env,
): ServiceConfig<z.output<S>> {
  const processes = MESH_PROCESSES.filter((p) => p.service === service);
  const roles = processes.map((p) => p.role) as [ProcessRole, ...ProcessRole[]];
  const role = checkConfig(roleSchema(roles), env);
  const process: MeshProcess =
    processes.find((p) => role.ok && p.role === role.value.FLOWMESH_ROLE) ?? processes[0];

  const common = checkConfig(commonSettingsSchema, env);
  const ownPort = checkConfig(httpPortSchema(process.name), env);
  const own = checkConfig(ownSchema, env);

  const problems: ConfigProblem[] = [role, common, ownPort, own].flatMap((r: ConfigResult<unknown>) =>
    r.ok ? [] : r.problems,
  );
  if (!common.ok || !ownPort.ok || !own.ok || problems.length > 0) throw new ConfigError(problems);

  const otel = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[0].startsWith('OTEL_') && e[1] !== undefined),
  );
  return { ...own.value, ...toCommonConfig(process, common.value, ownPort.value, otel) };
}
