import type { DataSource } from 'typeorm';

export const OUTBOX_TABLE = 'outbox_message';

/**
 * `"schema"."outbox_message"`: raw SQL must name the schema the data source is configured for,
 * since TypeORM qualifies its own queries with it but does not set `search_path`.
 */
export function outboxTablePath(dataSource: DataSource): string {
  const schema = (dataSource.options as { schema?: string }).schema;
  return schema ? `${quoteIdent(schema)}.${quoteIdent(OUTBOX_TABLE)}` : quoteIdent(OUTBOX_TABLE);
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
