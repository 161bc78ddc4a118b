import type { EntityManager, EntityTarget, ObjectLiteral, QueryDeepPartialEntity } from 'typeorm';

/**
 * Inserts the row unless one with its key exists (`ON CONFLICT DO NOTHING`); true when it was
 * inserted. `keyColumn` names any column of the key: a row returned is a row written.
 */
export async function insertIfAbsent<Row extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<Row>,
  row: QueryDeepPartialEntity<Row>,
  keyColumn: string,
): Promise<boolean> {
  const result = await manager
    .createQueryBuilder()
    .insert()
    .into(entity)
    .values(row)
    .orIgnore()
    .returning([keyColumn])
    .execute();
  return (result.raw as unknown[]).length > 0;
}
