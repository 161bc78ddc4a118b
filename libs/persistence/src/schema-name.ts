/**
 * Schema names go into `search_path` through a connection option, unquoted, so they are
 * restricted to plain lower-case identifiers: `flow_orchestrator`, not `flow-orchestrator`.
 */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(
      `schema "${schema}" is not a plain Postgres identifier: use lower-case letters, digits and underscores (e.g. flow_orchestrator)`,
    );
  }
}
