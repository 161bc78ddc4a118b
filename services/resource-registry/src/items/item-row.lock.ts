import type { EntityManager, EntityTarget } from 'typeorm';
import type { ItemColumns } from './item-columns.js';

/**
 * The item's row at `path`, locked until the transaction ends: two updates of one item run one
 * after the other, each seeing the row as the other left it.
 */
export function findItemForUpdate<Row extends ItemColumns>(
  manager: EntityManager,
  entity: EntityTarget<Row>,
  workspaceId: string,
  path: string,
): Promise<Row | null> {
  return manager
    .createQueryBuilder(entity, 'item')
    .where('item.workspaceId = :workspaceId AND item.path = :path', { workspaceId, path })
    .setLock('pessimistic_write')
    .getOne();
}
