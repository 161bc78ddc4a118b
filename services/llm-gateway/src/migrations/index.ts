import { CreateOutbox1700000000000 } from '@flowmesh/messaging';
import { CreateLlmCallAudit1700000100000 } from '../audit/create-llm-call-audit.migration.js';
import { CreateLlmRecordings1700000300000 } from '../recordings/create-llm-recordings.migration.js';
import { CreateLlmSpend1700000400000 } from '../budgets/create-llm-spend.migration.js';

/**
 * Migrations of the `llm_gateway` schema, oldest first; TypeORM runs the pending ones at start,
 * under an advisory lock. The first is the outbox table from libs/messaging: a state change
 * and the message it causes commit together.
 */
export const LLM_GATEWAY_MIGRATIONS = [
  CreateOutbox1700000000000,
  CreateLlmCallAudit1700000100000,
  CreateLlmRecordings1700000300000,
  CreateLlmSpend1700000400000,
];
