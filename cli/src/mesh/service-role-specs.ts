import { SERVICE_NAMES, SERVICE_SCHEMAS, type ServiceName } from '@flowmesh/contracts';

/** One service's role, as `provisionServiceRoles` takes it, with the service it is for. */
export interface ServiceRoleOf {
  readonly service: ServiceName;
  readonly role: string;
  readonly schema: string;
  readonly password: string;
}

/**
 * The role of each service in the database of `adminUrl` (`<database>_<schema>`), with the
 * password `passwordOf` gives it. `flowmesh start` and `flowmesh db provision-roles` both use it,
 * so a mesh started locally and one deployed by the chart name their roles the same way.
 */
export async function serviceRoleSpecs(
  adminUrl: string,
  passwordOf: (service: ServiceName) => string | Promise<string>,
): Promise<ServiceRoleOf[]> {
  // Loaded here, not with the CLI: only the database commands need TypeORM's and pg's modules.
  const { parseDatabaseUrl, serviceRoleName } = await import('@flowmesh/persistence');
  const { database } = parseDatabaseUrl(adminUrl);
  return Promise.all(
    SERVICE_NAMES.map(async (service) => ({
      service,
      role: serviceRoleName(database, SERVICE_SCHEMAS[service]),
      schema: SERVICE_SCHEMAS[service],
      password: await passwordOf(service),
    })),
  );
}
