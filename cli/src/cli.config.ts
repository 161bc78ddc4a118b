import { z } from 'zod';

/**
 * The CLI's settings, read once from the environment at the command's edge. Defaults match the
 * services', so `flowmesh start` and `flowmesh status` talk to the mesh a bare `npm start` runs.
 */
export interface CliSettings {
  readonly natsUrl: string;
  /**
   * NATS_URL was set: `flowmesh start` uses that server as given. Unset, it runs a nats-server of
   * its own that admits only the mesh's users (`localNatsPort`).
   */
  readonly natsUrlGiven: boolean;
  /** Port of the authenticated nats-server `flowmesh start` runs when NATS_URL is unset. */
  readonly localNatsPort: number;
  readonly databaseUrl: string;
  /**
   * DATABASE_URL was set: `flowmesh start` uses it as given. Unset, it uses the default server when
   * that answers, else an embedded PostgreSQL on `localPostgresPort`.
   */
  readonly databaseUrlGiven: boolean;
  readonly localPostgresPort: number;
  readonly subjectPrefix: string;
  /** The entry point's address (`http://127.0.0.1:8000`). */
  readonly httpHost: string;
  readonly httpPort: number;
  /** Port of the gRPC API, served by flow-orchestrator on `httpHost`. */
  readonly grpcPort: number;
  readonly shutdownTimeoutMs: number;
  /** The environment handed to each mesh process. */
  readonly env: NodeJS.ProcessEnv;
}

const port = z
  .string()
  .regex(/^\d+$/, 'must be a port number (0-65535)')
  .transform(Number)
  .refine((value) => value <= 65_535, 'must be a port number (0-65535)');

const schema = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().min(1).default('postgres://postgres@127.0.0.1:5432/flowmesh'),
  FLOWMESH_SUBJECT_PREFIX: z.string().min(1).default('fm'),
  FLOWMESH_HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  FLOWMESH_HTTP_PORT: port.default(8000),
  FLOWMESH_GRPC_PORT: port.default(50051),
  FLOWMESH_LOCAL_NATS_PORT: port.default(4322),
  FLOWMESH_LOCAL_POSTGRES_PORT: port.default(5433),
  FLOWMESH_SHUTDOWN_TIMEOUT_MS: z
    .string()
    .regex(/^[1-9]\d*$/, 'must be a positive whole number')
    .transform(Number)
    .default(10_000),
});

export class CliConfigError extends Error {}

export function readCliSettings(env: NodeJS.ProcessEnv): CliSettings {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = schema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`);
    throw new CliConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const settings = result.data;
  return {
    natsUrl: settings.NATS_URL,
    natsUrlGiven: present.NATS_URL !== undefined,
    localNatsPort: settings.FLOWMESH_LOCAL_NATS_PORT,
    databaseUrl: settings.DATABASE_URL,
    databaseUrlGiven: present.DATABASE_URL !== undefined,
    localPostgresPort: settings.FLOWMESH_LOCAL_POSTGRES_PORT,
    subjectPrefix: settings.FLOWMESH_SUBJECT_PREFIX,
    httpHost: settings.FLOWMESH_HTTP_HOST,
    httpPort: settings.FLOWMESH_HTTP_PORT,
    grpcPort: settings.FLOWMESH_GRPC_PORT,
    shutdownTimeoutMs: settings.FLOWMESH_SHUTDOWN_TIMEOUT_MS,
    env,
  };
}
