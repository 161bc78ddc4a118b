import { MESH_PROCESSES, SERVICE_SCHEMAS, type MeshProcess } from '@flowmesh/contracts';

/** One process's role, as `provisionServiceRoles` takes it, with the process it is for. */
export interface ServiceRoleOf {
  /** The mesh process (`flow-orchestrator`, `flow-orchestrator-worker`, ...). */
  readonly process: string;
  readonly role: string;
  readonly schema: string;
  readonly password: string;
  /** A worker's role: the rows of its service's schema, not the schema itself. */
  readonly rowsOnly: boolean;
}

/**
 * The role of each mesh process in the database of `adminUrl`: a service's, `<database>_<schema>`,
 * owns the schema; a worker's, `<database>_<schema>_worker`, reads and writes its rows only (it
 * runs user code beside it, and never migrates). Passwords from `passwordOf`, by process name.
 * `flowmesh start` and `flowmesh db provision-roles` both use it, so a mesh started locally and
 * one deployed by the chart name their roles the same way.
 */
export async function serviceRoleSpecs(
  adminUrl: string,
  passwordOf: (process: string) => string | Promise<string>,
): Promise<ServiceRoleOf[]> {
  // Loaded here, not with the CLI: only the database commands need TypeORM's and pg's modules.
  const { parseDatabaseUrl, serviceRoleName, workerRoleName } = await import('@flowmesh/persistence');
  const { database } = parseDatabaseUrl(adminUrl);
  return Promise.all(
    MESH_PROCESSES.map(async (meshProcess: MeshProcess) => {
      const schema = SERVICE_SCHEMAS[meshProcess.service];
      const rowsOnly = meshProcess.role === 'worker';
      return {
        process: meshProcess.name,
        role: rowsOnly ? workerRoleName(database, schema) : serviceRoleName(database, schema),
        schema,
        password: await passwordOf(meshProcess.name),
        rowsOnly,
      };
    }),
  );
}
