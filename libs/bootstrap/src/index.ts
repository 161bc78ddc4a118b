export { bootstrapService, EXIT_CONFIG } from './runtime/bootstrap-service.js';
export { startService } from './runtime/start-service.lazy.js';
export type { RunningService, StartServiceOptions } from './runtime/start-service.js';
export type {
  ExtraTransport,
  ModuleContext,
  ModuleFactory,
  ServiceDefinition,
} from './runtime/service-definition.js';
export { ProcessIdentity } from './runtime/process-identity.js';
export { packageVersion } from './runtime/package-version.js';
export { exitOnSignals, type ExitOnSignalsOptions } from './runtime/exit-on-signals.js';
export { ConfigError, type ConfigProblem } from './config/config.error.js';
export { checkConfig, loadConfig, type ConfigResult, type Env } from './config/load-config.js';
export {
  emptyConfigSchema,
  loadServiceConfig,
  type OwnConfigSchema,
  type ServiceConfig,
} from './config/service-config.js';
export {
  CONFIG_DEFAULTS,
  LOG_LEVELS,
  type CommonConfig,
  type LogLevel,
} from './config/common-config.schema.js';
export { SERVICE_CONFIG } from './config/service-config.token.js';
export * as settings from './config/setting.schemas.js';
export { SERVICE_HEADER } from './http/service-header.middleware.js';
export { jsonDepth, MAX_JSON_DEPTH } from './http/json-depth.guard.js';
export { HTTP_STATUS_OF, MeshErrorHttpFilter } from './http/mesh-error-http.filter.js';
export { npmEnvironment } from './runtime/npm-environment.js';
export { checkS3Credentials, s3ConnectionOf, S3_SETTINGS, type S3Connection } from './config/s3-settings.js';
