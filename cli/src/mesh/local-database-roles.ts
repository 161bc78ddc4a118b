import { randomBytes } from 'node:crypto';
import type { MeshProcess } from '@flowmesh/contracts';
import { keptSecret } from '../jobs/session-admin-token.js';
import { serviceRoleSpecs } from './service-role-specs.js';

const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Each process's own `DATABASE_URL` for `flowmesh start`: a role per service (owning its schema
 * and nothing else, no superuser) and per worker (the rows of its service's schema only), made
 * through the given `DATABASE_URL`, its password generated once and kept in
 * `.flowmesh/database-role-<process>` (mode 0600). Undefined, with `warn` told why, when the given
 * user may not create roles: then every process uses the given URL, as before.
 */
export async function localDatabaseRoles(
  adminUrl: string,
  workDir: string,
  warn: (message: string) => void,
): Promise<((meshProcess: MeshProcess) => string) | undefined> {
  // Loaded here, not with the CLI: only `flowmesh start` needs pg's modules.
  const { databaseUrlAs, parseDatabaseUrl, provisionServiceRoles } =
    await import('@flowmesh/persistence/roles');
  const specs = await serviceRoleSpecs(
    adminUrl,
    async (name) =>
      (await keptSecret(workDir, `database-role-${name}`, () => randomBytes(24).toString('base64url'))).token,
  );
  try {
    await provisionServiceRoles(adminUrl, specs);
  } catch (error) {
    const code = (error as { code?: string }).code;
    // PostgreSQL not answering is said by the start-up's own check, with how to start it; if it
    // answers by then, the services share the given URL, and the user is told.
    if (code === undefined || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08')) {
      warn(
        `no role per service (${(error as Error).message}): every process logs in as ${parseDatabaseUrl(adminUrl).user}`,
      );
      return undefined;
    }
    if (code !== INSUFFICIENT_PRIVILEGE) throw error;
    warn(
      `${parseDatabaseUrl(adminUrl).user} may not create roles (${(error as Error).message}), so every process logs in as it; give it CREATEROLE (or use a superuser) for a role per service`,
    );
    return undefined;
  }
  const urls = new Map(
    specs.map((spec) => [spec.process, databaseUrlAs(adminUrl, spec.role, spec.password)]),
  );
  return (meshProcess) => urls.get(meshProcess.name)!;
}
