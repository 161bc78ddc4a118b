import { httpPortVariable, type MeshProcess, type ProcessRole, type ServiceName } from '@flowmesh/contracts';
import { z } from 'zod';
import {
  natsUrl,
  oneOf,
  port,
  positiveInt,
  postgresUrl,
  subjectPrefix,
  text,
  wholeNumber,
} from './setting.schemas.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Settings every service has, as a typed tree. */
export interface CommonConfig {
  readonly service: ServiceName;
  readonly role: ProcessRole;
  /** The process name shown in logs and status (`flow-orchestrator-worker` for the worker). */
  readonly processName: string;
  readonly nats: {
    readonly url: string;
    /** How long a request safe to repeat is sent again after no reply (`FLOWMESH_REQUEST_RETRY_MS`). */
    readonly requestRetryMs: number;
  };
  readonly database: { readonly url: string };
  readonly subjectPrefix: string;
  readonly http: { readonly host: string; readonly port: number; readonly bodyLimitBytes: number };
  readonly logLevel: LogLevel;
  readonly shutdownTimeoutMs: number;
  /** How this deployment's JetStream streams are stored (`FLOWMESH_STREAM_*`). */
  readonly streams: { readonly storage: 'file' | 'memory'; readonly maxBytes?: number };
  /** Every `OTEL_*` variable, passed through to the OpenTelemetry SDK untouched. */
  readonly otel: Readonly<Record<string, string>>;
}

export const CONFIG_DEFAULTS = {
  natsUrl: 'nats://127.0.0.1:4222',
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/flowmesh',
  subjectPrefix: 'fm',
  httpHost: '127.0.0.1',
  logLevel: 'info',
  shutdownTimeoutMs: 10_000,
  // Flows take arguments of megabytes (a document, a batch); express's 100 KB refused them.
  httpBodyLimitBytes: 16 * 1024 * 1024,
  // Long enough for a service's restart (about 6 s idle) to be a pause for its callers.
  requestRetryMs: 30_000,
} as const;

/** `FLOWMESH_ROLE`, limited to the roles this service has. */
export function roleSchema(roles: readonly [ProcessRole, ...ProcessRole[]]) {
  return z.object({ FLOWMESH_ROLE: oneOf(roles).default(roles[0]) });
}

export const commonSettingsSchema = z.object({
  NATS_URL: natsUrl().default(CONFIG_DEFAULTS.natsUrl),
  DATABASE_URL: postgresUrl().default(CONFIG_DEFAULTS.databaseUrl),
  FLOWMESH_SUBJECT_PREFIX: subjectPrefix().default(CONFIG_DEFAULTS.subjectPrefix),
  FLOWMESH_HTTP_HOST: text().default(CONFIG_DEFAULTS.httpHost),
  PORT: port().optional(),
  LOG_LEVEL: oneOf(LOG_LEVELS).default(CONFIG_DEFAULTS.logLevel),
  FLOWMESH_SHUTDOWN_TIMEOUT_MS: positiveInt().default(CONFIG_DEFAULTS.shutdownTimeoutMs),
  /** How long requests safe to repeat (reads, interpolation, authentication) are sent again; 0: never. */
  FLOWMESH_REQUEST_RETRY_MS: wholeNumber().default(CONFIG_DEFAULTS.requestRetryMs),
  /** The largest JSON request body a service's HTTP API takes. */
  FLOWMESH_HTTP_BODY_LIMIT_BYTES: positiveInt().default(CONFIG_DEFAULTS.httpBodyLimitBytes),
  // The contract's limits (1 GiB work and events, 256 MiB dead letters) are production's; a
  // small deployment or a test run caps each stream's reservation, or keeps streams in memory.
  FLOWMESH_STREAM_STORAGE: oneOf(['file', 'memory']).default('file'),
  FLOWMESH_STREAM_MAX_BYTES: positiveInt().optional(),
});

/** The process's own port setting; it wins over `PORT`, so one env file can hold every port. */
export function httpPortSchema(processName: string) {
  const setting = httpPortVariable(processName);
  return z.object({ [setting]: port().optional() }).transform((env) => env[setting]);
}

export function toCommonConfig(
  process: MeshProcess,
  env: z.output<typeof commonSettingsSchema>,
  ownPort: number | undefined,
  otel: Record<string, string>,
): CommonConfig {
  return {
    service: process.service,
    role: process.role,
    processName: process.name,
    nats: { url: env.NATS_URL, requestRetryMs: env.FLOWMESH_REQUEST_RETRY_MS },
    database: { url: env.DATABASE_URL },
    subjectPrefix: env.FLOWMESH_SUBJECT_PREFIX,
    http: {
      host: env.FLOWMESH_HTTP_HOST,
      port: ownPort ?? env.PORT ?? process.defaultHttpPort,
      bodyLimitBytes: env.FLOWMESH_HTTP_BODY_LIMIT_BYTES,
    },
    logLevel: env.LOG_LEVEL,
    shutdownTimeoutMs: env.FLOWMESH_SHUTDOWN_TIMEOUT_MS,
    streams: { storage: env.FLOWMESH_STREAM_STORAGE, maxBytes: env.FLOWMESH_STREAM_MAX_BYTES },
    otel,
  };
}
