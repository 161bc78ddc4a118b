import { CreateOutbox1700000000000 } from '@flowmesh/messaging';
import { CreateIdentityTables1700000001000 } from '../identity/create-identity-tables.migration.js';
import { BindApiTokensToWorkspace1700000001100 } from '../identity/bind-api-tokens-to-workspace.migration.js';
import { CreateItemTables1700000002000 } from '../items/create-item-tables.migration.js';
import { CreateResourceVersion1700000003000 } from '../versions/create-resource-version.migration.js';
import { CreateDraft1700000003100 } from '../drafts/create-draft.migration.js';

/**
 * Migrations of the `registry` schema, oldest first; TypeORM runs the pending ones at start,
 * under an advisory lock. The first is the outbox table from libs/messaging: a state change
 * and the message it causes commit together.
 */
export const RESOURCE_REGISTRY_MIGRATIONS = [
  CreateOutbox1700000000000,
  CreateIdentityTables1700000001000,
  BindApiTokensToWorkspace1700000001100,
  CreateItemTables1700000002000,
  CreateResourceVersion1700000003000,
  CreateDraft1700000003100,
];
