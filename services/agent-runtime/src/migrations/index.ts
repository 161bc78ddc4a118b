import { CreateOutbox1700000000000 } from '@flowmesh/messaging';
import { AddAgentAnswers1764800000000 } from './add-agent-answers.migration.js';
import { AddAgentCheckpoints1764600000000 } from './add-agent-checkpoints.migration.js';
import { AddAgentProgress1764700000000 } from './add-agent-progress.migration.js';
import { CreateAgentRuns1764500000000 } from './create-agent-runs.migration.js';

/**
 * Migrations of the `agent_runtime` schema, oldest first; TypeORM runs the pending ones at start,
 * under an advisory lock. The first is the outbox table from libs/messaging: a state change
 * and the message it causes commit together.
 */
export const AGENT_RUNTIME_MIGRATIONS = [
  CreateOutbox1700000000000,
  CreateAgentRuns1764500000000,
  AddAgentCheckpoints1764600000000,
  AddAgentProgress1764700000000,
  AddAgentAnswers1764800000000,
];
