import { CreateOutbox1700000000000 } from '@flowmesh/messaging';
import { CreateJobTables1700000010000 } from '../jobs/create-job-tables.migration.js';
import { LeaseIndexes1700000020000 } from '../jobs/lease-indexes.migration.js';
import { ScheduleRunStarts1700000053000 } from '../triggers/schedules/schedule-run-starts.migration.js';
import { ScheduleTables1700000051000 } from '../triggers/schedules/schedule-tables.migration.js';
import { SuspendedJobsIndex1700000030000 } from '../telemetry/suspended-index.migration.js';
import { JobTriggerColumns1700000040000 } from '../triggers/job-trigger-columns.migration.js';
import { WorkspaceSettingsTable1700000060000 } from '../workspace-settings/workspace-settings.migration.js';
import { FlowModuleRows1700000065000 } from '../jobs/flow-module-rows.migration.js';
import { WorkspaceAgentCaps1700000070000 } from '../workspace-settings/agent-caps.migration.js';
import { EventTriggerErrorHandling1700000056000 } from '../triggers/event-triggers/error-handling-columns.migration.js';
import { EventTriggerDeliverySlots1700000055000 } from '../triggers/event-triggers/delivery-slots.migration.js';
import { EventTriggerTables1700000054000 } from '../triggers/event-triggers/event-trigger-tables.migration.js';
import { HttpTriggerTables1700000052000 } from '../triggers/http-routes/http-trigger-tables.migration.js';

/**
 * Migrations of the `orchestrator` schema, oldest first; TypeORM runs the pending ones at start,
 * under an advisory lock. The first is the outbox table from libs/messaging: a state change
 * and the message it causes commit together.
 */
export const FLOW_ORCHESTRATOR_MIGRATIONS = [
  CreateOutbox1700000000000,
  CreateJobTables1700000010000,
  LeaseIndexes1700000020000,
  SuspendedJobsIndex1700000030000,
  JobTriggerColumns1700000040000,
  ScheduleTables1700000051000,
  HttpTriggerTables1700000052000,
  ScheduleRunStarts1700000053000,
  EventTriggerTables1700000054000,
  EventTriggerDeliverySlots1700000055000,
  EventTriggerErrorHandling1700000056000,
  WorkspaceSettingsTable1700000060000,
  FlowModuleRows1700000065000,
  WorkspaceAgentCaps1700000070000,
];
