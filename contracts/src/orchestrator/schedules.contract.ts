import {
  createContractClient,
  defineRequest,
  SAFE_TO_REPEAT,
  type RequestTransport,
} from '../messaging/contract.js';
import {
  CreateScheduleRequestSchema,
  DeleteScheduleReplySchema,
  ListSchedulesReplySchema,
  ListSchedulesRequestSchema,
  PreviewScheduleReplySchema,
  PreviewScheduleRequestSchema,
  ScheduleExistsReplySchema,
  SchedulePathReplySchema,
  SchedulePathRequestSchema,
  ScheduleSchema,
  SetScheduleEnabledReplySchema,
  SetScheduleEnabledRequestSchema,
  UpdateScheduleRequestSchema,
} from './schedule.schema.js';

/**
 * Schedules, answered by flow-orchestrator (the service role), the same use cases as Windmill's
 * `schedules/*` routes. Every request carries the caller's token (`actor`) and workspace, as the
 * job requests do: a schedule is read and written with the caller's rights on its path, and its
 * target must be readable by the caller. A schedule the caller may not read answers NOT_FOUND.
 */
export const orchestratorSchedulesContract = {
  create: defineRequest('orchestrator.schedule.create', CreateScheduleRequestSchema, SchedulePathReplySchema),
  get: defineRequest('orchestrator.schedule.get', SchedulePathRequestSchema, ScheduleSchema, SAFE_TO_REPEAT),
  list: defineRequest(
    'orchestrator.schedule.list',
    ListSchedulesRequestSchema,
    ListSchedulesReplySchema,
    SAFE_TO_REPEAT,
  ),
  update: defineRequest('orchestrator.schedule.update', UpdateScheduleRequestSchema, SchedulePathReplySchema),
  delete: defineRequest('orchestrator.schedule.delete', SchedulePathRequestSchema, DeleteScheduleReplySchema),
  setEnabled: defineRequest(
    'orchestrator.schedule.set_enabled',
    SetScheduleEnabledRequestSchema,
    SetScheduleEnabledReplySchema,
  ),
  /** The next fire times of a cron expression in a timezone (5 unless `count`). */
  preview: defineRequest(
    'orchestrator.schedule.preview',
    PreviewScheduleRequestSchema,
    PreviewScheduleReplySchema,
  ),
  exists: defineRequest(
    'orchestrator.schedule.exists',
    SchedulePathRequestSchema,
    ScheduleExistsReplySchema,
    SAFE_TO_REPEAT,
  ),
} as const;

export type OrchestratorSchedulesContract = typeof orchestratorSchedulesContract;

/** `schedules.create({ actor, workspace, path, schedule, ... })`, ... over any request transport. */
export function createOrchestratorSchedulesClient(transport: RequestTransport) {
  return createContractClient(orchestratorSchedulesContract, transport);
}
export type OrchestratorSchedulesClient = ReturnType<typeof createOrchestratorSchedulesClient>;
