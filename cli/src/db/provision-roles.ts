import { CliConfigError } from '../cli.config.js';
import { serviceRoleSpecs } from '../mesh/service-role-specs.js';
import { rolePasswordsFromEnv } from './role-passwords.js';

export interface ProvisionRolesOptions {
  /** The server and database the services will use (credentials ignored); must be DATABASE_URL's. */
  readonly expectEndpoint?: string;
}

/**
 * `flowmesh db provision-roles`: a role per service and worker through the administrator's `DATABASE_URL`,
 * each with its password from the environment. Returns one line per role, never a password.
 */
export async function provisionRolesFromEnv(
  env: NodeJS.ProcessEnv,
  options: ProvisionRolesOptions = {},
): Promise<string[]> {
  const adminUrl = env.DATABASE_URL;
  if (!adminUrl) throw new CliConfigError('DATABASE_URL not set: the URL of a role that may create roles');
  const { describeTarget, parseDatabaseUrl, provisionServiceRoles } =
    await import('@flowmesh/persistence/roles');
  const admin = parseConfigured(parseDatabaseUrl, adminUrl, 'DATABASE_URL');
  if (options.expectEndpoint !== undefined) {
    const expected = parseConfigured(parseDatabaseUrl, options.expectEndpoint, '--expect-endpoint');
    const where = (t: typeof admin) => `${t.host}:${t.port}/${t.database}`;
    if (where(expected) !== where(admin)) {
      throw new CliConfigError(
        `DATABASE_URL names ${where(admin)} but the services will connect to ${where(expected)}; make them the same server and database`,
      );
    }
  }
  const passwords = rolePasswordsFromEnv(env);
  const specs = await serviceRoleSpecs(adminUrl, (name) => passwords.get(name)!);
  try {
    await provisionServiceRoles(adminUrl, specs);
  } catch (error) {
    const reason = reasonOf(error);
    const where = describeTarget(admin);
    // ensureDatabase's own errors already say where.
    throw new Error(
      `could not provision the roles${reason.includes(where) ? '' : ` on ${where}`}: ${reason}`,
      { cause: error },
    );
  }
  return specs.map(
    (spec) =>
      `${spec.role}: login role of ${spec.process}, ${spec.rowsOnly ? 'rows of' : 'owner of'} schema ${spec.schema}`,
  );
}

function parseConfigured<T>(parse: (url: string) => T, url: string, name: string): T {
  try {
    return parse(url);
  } catch (error) {
    throw new CliConfigError(`${name}: ${(error as Error).message}`);
  }
}

const INSUFFICIENT_PRIVILEGE = '42501';

function reasonOf(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  // A refused connection comes as an AggregateError with an empty message.
  const reason = (message || code || String(error)).split('\n')[0];
  return code === INSUFFICIENT_PRIVILEGE
    ? `${reason} (give the user CREATEROLE and ownership of the schemas, or use a superuser)`
    : reason;
}
