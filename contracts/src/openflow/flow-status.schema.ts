import { z } from 'zod';
import { discriminatedUnionOf } from './discriminated-union.js';
import { JsonObjectSchema } from './json-object.schema.js';
import { named } from './openflow.registry.js';

export const FLOW_STATUS_MODULE_STATES = [
  'WaitingForPriorSteps',
  'WaitingForEvents',
  'WaitingForExecutor',
  'InProgress',
  'Success',
  'Failure',
] as const;

export const AgentToolCallActionSchema = named(
  'AgentToolCallAction',
  'The agent called a flow module tool, run as the job job_id.',
  z.looseObject({
    job_id: z.uuid(),
    function_name: z.string(),
    type: z.literal('tool_call'),
    module_id: z.string(),
  }),
);

export const AgentMcpToolCallActionSchema = named(
  'AgentMcpToolCallAction',
  'The agent called a tool of an MCP server.',
  z.looseObject({
    call_id: z.uuid(),
    function_name: z.string(),
    resource_path: z.string(),
    type: z.literal('mcp_tool_call'),
    arguments: JsonObjectSchema.optional(),
  }),
);

export const AgentWebSearchActionSchema = named(
  'AgentWebSearchAction',
  'The agent searched the web.',
  z.looseObject({
    type: z.literal('web_search'),
  }),
);

export const AgentMessageActionSchema = named(
  'AgentMessageAction',
  'The agent produced a message.',
  z.looseObject({
    type: z.literal('message'),
    content: z.unknown(),
  }),
);

export const AgentApprovalRequestActionSchema = named(
  'AgentApprovalRequestAction',
  "The agent called tools that require approval: the step waits for one answer to all of them (its call_id is the request's).",
  z.looseObject({
    type: z.literal('approval_request'),
    call_id: z.string(),
    calls: z.array(
      z.looseObject({ call_id: z.string(), function_name: z.string(), arguments: z.unknown().optional() }),
    ),
    timeout_s: z.int(),
  }),
);

export const AgentQuestionActionSchema = named(
  'AgentQuestionAction',
  "The agent asked the flow's user a question (ask_question): the step waits for the answer.",
  z.looseObject({
    type: z.literal('question'),
    call_id: z.string(),
    question: z.string(),
    choices: z.array(z.string()).optional(),
    multi_select: z.boolean().optional(),
    timeout_s: z.int(),
  }),
);

export const AgentAnswerActionSchema = named(
  'AgentAnswerAction',
  'How an approval request or a question was answered, or that nobody answered it in time.',
  z.looseObject({
    type: z.literal('answer'),
    call_id: z.string(),
    approved: z.boolean(),
    answer: z.unknown().optional(),
    approver: z.string().optional(),
    comment: z.string().optional(),
    timed_out: z.boolean().optional(),
  }),
);

export const AgentActionSchema = named(
  'AgentAction',
  'One action of an AI agent step, in the order it happened.',
  discriminatedUnionOf('type', 'agent action type', [
    AgentToolCallActionSchema,
    AgentMcpToolCallActionSchema,
    AgentWebSearchActionSchema,
    AgentMessageActionSchema,
    AgentApprovalRequestActionSchema,
    AgentQuestionActionSchema,
    AgentAnswerActionSchema,
  ]),
);

export const FlowStatusModuleSchema = named(
  'FlowStatusModule',
  'The state of one module of a running flow.',
  z.looseObject({
    type: z.enum(FLOW_STATUS_MODULE_STATES),
    id: z.string().optional(),
    job: z.uuid().optional(),
    count: z.int().optional(),
    progress: z.int().optional(),
    iterator: z
      .looseObject({
        index: z.int().optional(),
        itered: z.array(z.unknown()).optional(),
        itered_len: z.int().optional(),
        args: z.unknown().optional(),
      })
      .optional(),
    flow_jobs: z.array(z.string()).optional(),
    /** An aidecision with branches: the decision's own job (`job` is then the chosen branch's). */
    decision_job: z.uuid().optional(),
    flow_jobs_success: z.array(z.boolean()).optional(),
    flow_jobs_duration: z
      .looseObject({
        started_at: z.array(z.string()).optional(),
        duration_ms: z.array(z.int()).optional(),
      })
      .optional(),
    branch_chosen: z
      .looseObject({
        type: z.enum(['branch', 'default']),
        branch: z.int().optional(),
      })
      .optional(),
    branchall: z
      .looseObject({
        branch: z.int(),
        len: z.int(),
      })
      .optional(),
    approvers: z
      .array(
        z.looseObject({
          resume_id: z.int(),
          approver: z.string(),
        }),
      )
      .optional(),
    failed_retries: z.array(z.uuid()).optional(),
    skipped: z.boolean().optional(),
    agent_actions: z.array(AgentActionSchema).optional(),
    agent_actions_success: z.array(z.boolean()).optional(),
  }),
);

export const FlowStatusFailureModuleSchema = named(
  'FlowStatusFailureModule',
  'The state of the failure module, with the module whose failure it handles.',
  // allOf in the spec. The extra half is optional so that a missing module is reported once.
  z.intersection(FlowStatusModuleSchema, z.looseObject({ parent_module: z.string().optional() }).optional()),
);

export const FlowStatusSchema = named(
  'FlowStatus',
  'The state of a running flow, module by module.',
  z.looseObject({
    step: z.int(),
    modules: z.array(FlowStatusModuleSchema),
    user_states: z.record(z.string(), z.unknown()).optional(),
    /**
     * Set on a run started by restarting an ended one from a step (Windmill's `RestartedFrom`):
     * the run it restarts, the step it starts at, and the iteration or branch of a loop or branch
     * step it starts at, when one was given.
     */
    restarted_from: z
      .looseObject({
        flow_job_id: z.uuid(),
        step_id: z.string(),
        branch_or_iteration_n: z.int().nullable().optional(),
      })
      .optional(),
    /** The run's memory id, as it was started with (`memory_id`); set on the flow the run started. */
    memory_id: z.string().optional(),
    preprocessor_module: FlowStatusModuleSchema.optional(),
    failure_module: FlowStatusFailureModuleSchema,
    retry: z
      .looseObject({
        fail_count: z.int().optional(),
        failed_jobs: z.array(z.uuid()).optional(),
      })
      .optional(),
  }),
);

export type FlowStatusModuleState = (typeof FLOW_STATUS_MODULE_STATES)[number];
export type AgentToolCallAction = z.infer<typeof AgentToolCallActionSchema>;
export type AgentMcpToolCallAction = z.infer<typeof AgentMcpToolCallActionSchema>;
export type AgentWebSearchAction = z.infer<typeof AgentWebSearchActionSchema>;
export type AgentMessageAction = z.infer<typeof AgentMessageActionSchema>;
export type AgentApprovalRequestAction = z.infer<typeof AgentApprovalRequestActionSchema>;
export type AgentQuestionAction = z.infer<typeof AgentQuestionActionSchema>;
export type AgentAnswerAction = z.infer<typeof AgentAnswerActionSchema>;
export type AgentAction = z.infer<typeof AgentActionSchema>;
export type FlowStatusModule = z.infer<typeof FlowStatusModuleSchema>;
export type FlowStatusFailureModule = z.infer<typeof FlowStatusFailureModuleSchema>;
export type FlowStatus = z.infer<typeof FlowStatusSchema>;
