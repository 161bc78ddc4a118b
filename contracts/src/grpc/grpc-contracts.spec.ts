import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { AgentStreamEnvelopeSchema, AgentStreamEventSchema } from '../orchestrator/agent-stream.schema.js';
import { JobSchema, JobSummarySchema } from '../orchestrator/job.schema.js';
import { gatewayBudgetContract as budgets, SpendSchema } from '../gateway/budget.contract.js';
import { orchestratorJobsContract as jobs } from '../orchestrator/jobs.contract.js';
import { NewHttpTriggerSchema } from '../orchestrator/http-trigger.schema.js';
import { orchestratorHttpTriggersContract as routes } from '../orchestrator/http-triggers.contract.js';
import { orchestratorSchedulesContract as schedules } from '../orchestrator/schedules.contract.js';
import { registryItemsContract as items } from '../registry/resource-registry-items.contract.js';
import { ItemDeletedReplySchema, ListedResourceSchema } from '../registry/resource.schema.js';
import { grpcProtoRoot } from './grpc-protos.js';
import {
  JobEndSchema,
  JobWatchEventSchema,
  StepEventSchema,
  WatchJobRequestSchema,
} from './job-watch.schema.js';

/** Fields of a zod schema left out of its proto message, each with the reason. */
type Omitted = Record<string, string>;
interface Mirror {
  readonly message: string;
  readonly schema: z.ZodType;
  readonly omitted?: Omitted;
}

const ACTOR: Omitted = { actor: 'the token travels in the `authorization` metadata' };
const variant = (type: string) => AgentStreamEventSchema.options.find((o) => o.shape.type.value === type)!;
const BY_TRIGGERS: Omitted = {
  trigger: "set by the mesh's own triggers, not by clients",
  trigger_event: "set by the mesh's own triggers, not by clients",
};
const AS_ONEOF: Omitted = { type: 'the name of the oneof member carries it' };
const REFUSED = 'not supported: the contract refuses it when set, so the proto leaves it out';

/** Every proto message and the zod contract it mirrors. */
const MIRRORS: readonly Mirror[] = [
  {
    message: 'RunFlowRequest',
    schema: jobs.runFlow.request,
    omitted: {
      ...ACTOR,
      pinned_agents: 'set by agent-runtime for nested agent tools, not by clients',
      flow_chain: 'set by agent-runtime for flow tools, not by clients',
      agent_tool: 'set by agent-runtime for nested agent tools, not by clients',
      agent_depth: 'set by agent-runtime for nested agent tools, not by clients',
      recording: 'record and replay are run over HTTP (`flowmesh eval run --record/--replay`)',
      ...BY_TRIGGERS,
    },
  },
  { message: 'RunScriptRequest', schema: jobs.runScript.request, omitted: { ...ACTOR, ...BY_TRIGGERS } },
  { message: 'RunJobReply', schema: jobs.runFlow.reply },
  { message: 'RestartFlowRequest', schema: jobs.restartFlow.request, omitted: ACTOR },
  { message: 'JobIdRequest', schema: jobs.get.request, omitted: ACTOR },
  { message: 'WaitResultRequest', schema: jobs.waitResult.request, omitted: ACTOR },
  { message: 'JobResultReply', schema: jobs.getResult.reply },
  { message: 'ResultByNodeRequest', schema: jobs.resultByNode.request, omitted: ACTOR },
  { message: 'ResultByNodeReply', schema: jobs.resultByNode.reply },
  { message: 'CancelJobRequest', schema: jobs.cancel.request, omitted: ACTOR },
  { message: 'CancelJobReply', schema: jobs.cancel.reply },
  {
    message: 'ResumeJobRequest',
    schema: jobs.resume.request,
    omitted: {
      ...ACTOR,
      approver: 'a gRPC caller answers as itself, as over HTTP',
      authenticated: 'a gRPC caller answers as itself, as over HTTP',
    },
  },
  { message: 'ResumeJobReply', schema: jobs.resume.reply },
  { message: 'ListJobsRequest', schema: jobs.list.request, omitted: ACTOR },
  { message: 'ListJobsReply', schema: jobs.list.reply },
  { message: 'JobLogsRequest', schema: jobs.logs.request, omitted: ACTOR },
  { message: 'JobLogsReply', schema: jobs.logs.reply },
  { message: 'Job', schema: JobSchema },
  { message: 'JobSummary', schema: JobSummarySchema },
  { message: 'WatchJobRequest', schema: WatchJobRequestSchema },
  { message: 'JobEvent', schema: JobWatchEventSchema },
  { message: 'StepEvent', schema: StepEventSchema },
  { message: 'JobEnd', schema: JobEndSchema },
  { message: 'AgentStreamEnvelope', schema: AgentStreamEnvelopeSchema },
  { message: 'TokenDelta', schema: variant('token_delta'), omitted: AS_ONEOF },
  { message: 'ToolCall', schema: variant('tool_call'), omitted: AS_ONEOF },
  { message: 'ToolCallArguments', schema: variant('tool_call_arguments'), omitted: AS_ONEOF },
  { message: 'ToolResult', schema: variant('tool_result'), omitted: AS_ONEOF },
  { message: 'ItemPathRequest', schema: items.getResource.request, omitted: ACTOR },
  { message: 'ItemDeletedReply', schema: ItemDeletedReplySchema },
  { message: 'Resource', schema: items.getResource.reply },
  { message: 'ListedResource', schema: ListedResourceSchema },
  { message: 'CreateResourceRequest', schema: items.createResource.request, omitted: ACTOR },
  { message: 'UpdateResourceRequest', schema: items.updateResource.request, omitted: ACTOR },
  { message: 'ListResourcesRequest', schema: items.listResources.request, omitted: ACTOR },
  { message: 'ListResourcesReply', schema: items.listResources.reply },
  { message: 'Variable', schema: items.getVariable.reply },
  { message: 'GetVariableRequest', schema: items.getVariable.request, omitted: ACTOR },
  { message: 'CreateVariableRequest', schema: items.createVariable.request, omitted: ACTOR },
  { message: 'UpdateVariableRequest', schema: items.updateVariable.request, omitted: ACTOR },
  { message: 'ListVariablesRequest', schema: items.listVariables.request, omitted: ACTOR },
  { message: 'ListVariablesReply', schema: items.listVariables.reply },
  { message: 'SetBudgetRequest', schema: budgets.setBudget.request, omitted: ACTOR },
  { message: 'DeleteBudgetRequest', schema: budgets.deleteBudget.request, omitted: ACTOR },
  { message: 'DeleteBudgetReply', schema: budgets.deleteBudget.reply },
  { message: 'ListSpendRequest', schema: budgets.listSpend.request, omitted: ACTOR },
  { message: 'ListSpendReply', schema: budgets.listSpend.reply },
  { message: 'Spend', schema: SpendSchema },
  { message: 'Schedule', schema: schedules.get.reply },
  { message: 'CreateScheduleRequest', schema: schedules.create.request, omitted: ACTOR },
  { message: 'UpdateScheduleRequest', schema: schedules.update.request, omitted: ACTOR },
  { message: 'SchedulePathRequest', schema: schedules.get.request, omitted: ACTOR },
  { message: 'SchedulePathReply', schema: schedules.create.reply },
  { message: 'ListSchedulesRequest', schema: schedules.list.request, omitted: ACTOR },
  { message: 'ListSchedulesReply', schema: schedules.list.reply },
  { message: 'SetScheduleEnabledRequest', schema: schedules.setEnabled.request, omitted: ACTOR },
  { message: 'SetScheduleEnabledReply', schema: schedules.setEnabled.reply },
  { message: 'DeleteScheduleReply', schema: schedules.delete.reply },
  { message: 'PreviewScheduleRequest', schema: schedules.preview.request, omitted: ACTOR },
  { message: 'PreviewScheduleReply', schema: schedules.preview.reply },
  { message: 'ScheduleExistsReply', schema: schedules.exists.reply },
  { message: 'HttpTrigger', schema: routes.get.reply },
  {
    message: 'NewHttpTrigger',
    schema: NewHttpTriggerSchema,
    omitted: {
      is_static_website: REFUSED,
      static_asset_config: REFUSED,
      error_handler_path: REFUSED,
      retry: REFUSED,
    },
  },
  { message: 'CreateHttpTriggerRequest', schema: routes.create.request, omitted: ACTOR },
  { message: 'UpdateHttpTriggerRequest', schema: routes.update.request, omitted: ACTOR },
  { message: 'HttpTriggerPathRequest', schema: routes.get.request, omitted: ACTOR },
  { message: 'ListHttpTriggersRequest', schema: routes.list.request, omitted: ACTOR },
  { message: 'ListHttpTriggersReply', schema: routes.list.reply },
  { message: 'SetHttpTriggerEnabledRequest', schema: routes.setEnabled.request, omitted: ACTOR },
  { message: 'HttpRouteExistsRequest', schema: routes.routeExists.request, omitted: ACTOR },
  { message: 'HttpTriggerExistsReply', schema: routes.exists.reply },
  { message: 'HttpTriggerDeletedReply', schema: routes.delete.reply },
];

/** The other requests and replies whose proto message is one of the above. */
const SAME_SHAPE: ReadonlyArray<readonly [string, z.ZodType]> = [
  ['ItemPathRequest', items.deleteResource.request],
  ['ItemPathRequest', items.deleteVariable.request],
  ['JobIdRequest', jobs.getResult.request],
  ['SchedulePathRequest', schedules.delete.request],
  ['SchedulePathRequest', schedules.exists.request],
  ['SchedulePathReply', schedules.update.reply],
  ['HttpTriggerPathRequest', routes.delete.request],
  ['HttpTriggerPathRequest', routes.exists.request],
  ['HttpTrigger', routes.create.reply],
  ['HttpTrigger', routes.update.reply],
  ['HttpTrigger', routes.setEnabled.reply],
  ['HttpTriggerExistsReply', routes.routeExists.reply],
];

/** Messages with no zod counterpart of their own, and why. */
const PROTO_ONLY: Record<string, string> = {
  AgentStreamEvent: "the union AgentStreamEventSchema as a oneof: checked by 'agent stream events'",
};

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  values?: unknown[];
  options?: z.ZodType[];
  entries?: Record<string, unknown>;
  defaultValue?: unknown;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/** Defaults a proto field without presence gives anyway (proto3's zero values). */
const ZERO_VALUES: readonly unknown[] = ['', 0, false];

/**
 * The schema under optional/nullable/default/pipe, and whether a value may be left out or null
 * (a default that is proto3's zero value does not count: absent and zero then mean the same).
 */
function unwrap(schema: z.ZodType): { core: z.ZodType; absentOk: boolean } {
  let core = schema;
  let absentOk = false;
  for (;;) {
    const def = defOf(core);
    if (def.type === 'optional' || def.type === 'nullable') absentOk = true;
    else if (def.type === 'default') absentOk ||= !ZERO_VALUES.includes(def.defaultValue);
    else if (def.type !== 'pipe' && def.type !== 'prefault') return { core, absentOk };
    core = (def.type === 'pipe' ? def.in : def.innerType)!;
  }
}

const NUMBER_TYPES = ['double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64'];
const JSON_TYPES = ['google.protobuf.Value', 'google.protobuf.Struct'];

/** A problem with one zod field against its proto field, or undefined when they agree. */
function mismatch(name: string, schema: z.ZodType, field: protobuf.Field): string | undefined {
  const { core, absentOk } = unwrap(schema);
  const def = defOf(core);
  const message = field.resolvedType instanceof protobuf.Type;
  const hasPresence = field.repeated || message || field.partOf !== null;
  if (absentOk && !hasPresence)
    return `${name}: may be absent or null in zod, so the proto field needs presence (optional)`;
  if (def.type === 'array') {
    if (!field.repeated) return `${name}: an array in zod, not repeated in the proto`;
    return mismatch(name, def.element!, { ...field, repeated: false, partOf: null } as protobuf.Field);
  }
  if (field.repeated) return `${name}: repeated in the proto, not an array in zod`;
  const type = field.type.replace(/^\./, '');
  const scalar = (wanted: string[]) =>
    wanted.includes(type) ? undefined : `${name}: ${def.type} in zod, ${type} in the proto`;
  switch (def.type) {
    case 'string':
    case 'enum':
      return scalar(['string']);
    case 'boolean':
      return scalar(['bool']);
    case 'number':
      return scalar(NUMBER_TYPES);
    case 'literal':
      return scalar([typeof def.values![0] === 'boolean' ? 'bool' : 'string']);
    case 'union':
      // A union on a tag is a oneof message of its own (checked beside); others are JSON.
      if (message && field.resolvedType!.name in PROTO_ONLY) return undefined;
      return scalar(['google.protobuf.Value']);
    case 'unknown':
    case 'any':
      return scalar(['google.protobuf.Value']);
    case 'record':
      return scalar(JSON_TYPES);
    case 'object':
      return message ? undefined : `${name}: an object in zod, ${type} in the proto`;
    default:
      return `${name}: zod type ${def.type} has no proto mapping in this test`;
  }
}

function problemsOf(mirror: Mirror): string[] {
  const type = grpcProtoRoot().lookupType(`flowmesh.v1.${mirror.message}`);
  const shape = defOf(mirror.schema).shape!;
  const omitted = mirror.omitted ?? {};
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    const field = type.fields[name];
    if (name in omitted) {
      if (field) problems.push(`${name}: listed as omitted but in the proto`);
    } else if (!field) problems.push(`${name}: in zod, missing from the proto`);
    else {
      const problem = mismatch(name, schema, field);
      if (problem) problems.push(problem);
    }
  }
  for (const name of Object.keys(type.fields))
    if (!(name in shape)) problems.push(`${name}: in the proto, not in zod`);
  for (const name of Object.keys(omitted))
    if (!(name in shape)) problems.push(`${name}: listed as omitted, not in zod`);
  return problems;
}

describe('the protos mirror the zod contracts', () => {
  it.each(MIRRORS.map((mirror) => [mirror.message, mirror] as const))('%s', (_name, mirror) => {
    expect(problemsOf(mirror)).toEqual([]);
  });

  it.each(SAME_SHAPE)('%s also stands for another request or reply of the same shape', (message, schema) => {
    const omitted = 'actor' in defOf(schema).shape! ? ACTOR : {};
    expect(problemsOf({ message, schema, omitted })).toEqual([]);
  });

  it('every message of package flowmesh.v1 is mirrored (or says why not)', () => {
    const pkg = grpcProtoRoot().lookup('flowmesh.v1') as protobuf.Namespace;
    const messages = pkg.nestedArray.filter((item) => item instanceof protobuf.Type).map((type) => type.name);
    const covered = new Set([...MIRRORS.map((mirror) => mirror.message), ...Object.keys(PROTO_ONLY)]);
    expect(messages.filter((name) => !covered.has(name))).toEqual([]);
  });

  it('agent stream events: one oneof member per event type, each with its fields', () => {
    const oneof = grpcProtoRoot().lookupType('flowmesh.v1.AgentStreamEvent').oneofs['event'];
    const types = AgentStreamEventSchema.options.map((option) => option.shape.type.value);
    expect(oneof.oneof.sort()).toEqual([...types].sort());
    for (const member of oneof.fieldsArray) {
      const problems = problemsOf({
        message: member.resolvedType!.name,
        schema: variant(member.name),
        omitted: AS_ONEOF,
      });
      expect(problems, member.name).toEqual([]);
    }
  });

  it('a change on either side is caught: a zod field the proto lacks, a type that differs', () => {
    const shape = defOf(jobs.cancel.reply).shape!;
    const widened = { _zod: { def: { type: 'object', shape: { ...shape, extra: shape['cancelled'] } } } };
    expect(problemsOf({ message: 'CancelJobReply', schema: widened as unknown as z.ZodType })).toEqual([
      'extra: in zod, missing from the proto',
    ]);
    expect(problemsOf({ message: 'RunJobReply', schema: jobs.cancel.reply })).toEqual([
      'cancelled: in zod, missing from the proto',
      'job_id: in the proto, not in zod',
    ]);
    const stringAsBool = { _zod: { def: { type: 'object', shape: { cancelled: shape['cancelled'] } } } };
    expect(problemsOf({ message: 'RunJobReply', schema: stringAsBool as unknown as z.ZodType })).toContain(
      'job_id: in the proto, not in zod',
    );
  });
});
