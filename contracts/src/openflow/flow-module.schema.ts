import { z } from 'zod';
import { AgentToolInputsSchema, AiAgentInputTransformsSchema } from './ai-agent-inputs.schema.js';
import {
  McpToolValueSchema,
  QuestionToolValueSchema,
  WebsearchToolValueSchema,
} from './agent-tool-values.schema.js';
import { discriminatedUnionOf } from './discriminated-union.js';
import { InputTransformSchema, NumberOrTransformSchema } from './input-transform.schema.js';
import {
  DebouncingSchema,
  JobTokenScopesSchema,
  ModuleMockSchema,
  SkipIfSchema,
  SuspendSchema,
} from './module-options.schema.js';
import { booleanDefaultingTo, named } from './openflow.registry.js';
import { DecisionProviderTransformSchema } from './provider.schema.js';
import { RetrySchema, StopAfterIfSchema } from './retry.schema.js';
import {
  IdentitySchema,
  PathFlowSchema,
  PathScriptSchema,
  RawScriptSchema,
} from './script-modules.schema.js';

// The recursive part of the model lives in this one file: modules hold loops and branches
// that hold modules, and agents hold tools that are modules. Getters defer each reference
// until parse time, and keeping the cycle in one file keeps ES module evaluation order safe.

export const MODULE_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

export const ModuleIdSchema = z.string().regex(MODULE_ID_PATTERN, {
  error: 'must be a valid identifier: letters, digits, underscores and hyphens only',
});

export const FlowModuleSchema = named(
  'FlowModule',
  'A single step in a flow: a script, subflow, loop, branch or AI step.',
  z.looseObject({
    id: ModuleIdSchema,
    get value(): typeof FlowModuleValueSchema {
      return FlowModuleValueSchema;
    },
    stop_after_if: StopAfterIfSchema.optional(),
    stop_after_all_iters_if: StopAfterIfSchema.optional(),
    skip_if: SkipIfSchema.optional(),
    sleep: InputTransformSchema.optional(),
    cache_ttl: z.number().optional(),
    cache_ignore_s3_path: z.boolean().optional(),
    timeout: NumberOrTransformSchema.optional(),
    delete_after_secs: z.int().optional(),
    summary: z.string().optional(),
    mock: ModuleMockSchema.optional(),
    suspend: SuspendSchema.optional(),
    priority: z.number().optional(),
    continue_on_error: z.boolean().optional(),
    job_token_scopes: JobTokenScopesSchema.optional(),
    retry: RetrySchema.optional(),
    debouncing: DebouncingSchema.optional(),
  }),
);

export const ForloopFlowSchema = named(
  'ForloopFlow',
  "Runs its modules once per element of the iterator ('flow_input.iter.value', 'flow_input.iter.index').",
  z.looseObject({
    get modules(): z.ZodArray<typeof FlowModuleSchema> {
      return z.array(FlowModuleSchema);
    },
    iterator: InputTransformSchema,
    skip_failures: z.boolean(),
    type: z.literal('forloopflow'),
    parallel: z.boolean().optional(),
    parallelism: NumberOrTransformSchema.optional(),
    squash: z.boolean().optional(),
  }),
);

export const WhileloopFlowSchema = named(
  'WhileloopFlow',
  'Runs its modules repeatedly until a stop_after_if stops it; the iterator is the iteration counter.',
  z.looseObject({
    get modules(): z.ZodArray<typeof FlowModuleSchema> {
      return z.array(FlowModuleSchema);
    },
    skip_failures: z.boolean(),
    type: z.literal('whileloopflow'),
    parallel: z.boolean().optional(),
    parallelism: NumberOrTransformSchema.optional(),
    squash: z.boolean().optional(),
  }),
);

export const BranchOneBranchSchema = named(
  'BranchOneBranch',
  'A branch of a branchone: its modules run when expr is the first to return true.',
  z.looseObject({
    summary: z.string().optional(),
    expr: z.string(),
    get modules(): z.ZodArray<typeof FlowModuleSchema> {
      return z.array(FlowModuleSchema);
    },
  }),
);

export const BranchOneSchema = named(
  'BranchOne',
  'Runs the first branch whose expr is true, else the default modules.',
  z.looseObject({
    branches: z.array(BranchOneBranchSchema),
    get default(): z.ZodArray<typeof FlowModuleSchema> {
      return z.array(FlowModuleSchema);
    },
    type: z.literal('branchone'),
  }),
);

export const AiDecisionSchema = named(
  'AiDecision',
  'One call to a decision model that answers typed questions about a state with calibrated probabilities. ' +
    'Its result is { output: { <question name>: answer }, model, usage }. With branches (and default) it ' +
    'routes like a branchone: the first branch whose expr (previous_result: the answers) is true runs, the ' +
    "step's result is that branch's, and results.<id> stays the answers.",
  z.looseObject({
    input_transforms: z.looseObject({
      provider: DecisionProviderTransformSchema,
      state: InputTransformSchema,
      questions: InputTransformSchema,
    }),
    type: z.literal('aidecision'),
    tag: z.string().optional(),
    branches: z.array(BranchOneBranchSchema).optional(),
    get default(): z.ZodOptional<z.ZodArray<typeof FlowModuleSchema>> {
      return z.array(FlowModuleSchema).optional();
    },
  }),
);

export const BranchAllBranchSchema = named(
  'BranchAllBranch',
  'A branch of a branchall: its modules always run.',
  z.looseObject({
    summary: z.string().optional(),
    skip_failure: z.boolean().optional(),
    get modules(): z.ZodArray<typeof FlowModuleSchema> {
      return z.array(FlowModuleSchema);
    },
  }),
);

export const BranchAllSchema = named(
  'BranchAll',
  'Runs every branch, in parallel or in sequence.',
  z.looseObject({
    branches: z.array(BranchAllBranchSchema),
    type: z.literal('branchall'),
    parallel: z.boolean().optional(),
  }),
);

// One instance shared by AiAgent and its tool twin, named so the JSON Schema can reference it.
let agentTools: z.ZodOptional<z.ZodArray<typeof AgentToolSchema>> | undefined;
const agentToolsSchema = () =>
  (agentTools ??= named('AgentTools', 'The tools of an AI agent.', z.array(AgentToolSchema).optional()));

export const AiAgentSchema = named(
  'AiAgent',
  'AI agent step: a loop of model calls that may call the tools of the step.',
  z.looseObject({
    input_transforms: AiAgentInputTransformsSchema,
    get tools(): z.ZodOptional<z.ZodArray<typeof AgentToolSchema>> {
      return agentToolsSchema();
    },
    type: z.literal('aiagent'),
    tag: z.string().optional(),
    omit_output_from_conversation: booleanDefaultingTo(false),
    agent: z.string().optional(),
    tool_inputs: AgentToolInputsSchema.optional(),
    parallel: z.boolean().optional(),
  }),
);

export const FlowModuleValueSchema = named(
  'FlowModuleValue',
  'What a step runs, discriminated by type.',
  discriminatedUnionOf('type', 'module type', [
    RawScriptSchema,
    PathScriptSchema,
    PathFlowSchema,
    ForloopFlowSchema,
    WhileloopFlowSchema,
    BranchOneSchema,
    BranchAllSchema,
    IdentitySchema,
    AiAgentSchema,
    AiDecisionSchema,
  ]),
);

/** The module types, in the order of the spec. */
export const FLOW_MODULE_TYPES = [
  'rawscript',
  'script',
  'flow',
  'forloopflow',
  'whileloopflow',
  'branchone',
  'branchall',
  'identity',
  'aiagent',
  'aidecision',
] as const satisfies readonly FlowModuleType[];

// A flowmodule tool is any module value plus `tool_type: flowmodule` (allOf in the spec).
const flowModuleTool = <T extends z.ZodObject>(id: string, schema: T) =>
  named(
    id,
    `A ${id.replace(/Tool$/, '')} module offered to an AI agent as a tool.`,
    schema.extend({ tool_type: z.literal('flowmodule') }),
  );

export const FlowModuleToolSchema = named(
  'FlowModuleTool',
  'A tool implemented as a flow module (script, flow, loop, agent, ...).',
  discriminatedUnionOf('type', 'module type', [
    flowModuleTool('RawScriptTool', RawScriptSchema),
    flowModuleTool('PathScriptTool', PathScriptSchema),
    flowModuleTool('PathFlowTool', PathFlowSchema),
    flowModuleTool('ForloopFlowTool', ForloopFlowSchema),
    flowModuleTool('WhileloopFlowTool', WhileloopFlowSchema),
    flowModuleTool('BranchOneTool', BranchOneSchema),
    flowModuleTool('BranchAllTool', BranchAllSchema),
    flowModuleTool('IdentityTool', IdentitySchema),
    flowModuleTool('AiAgentTool', AiAgentSchema),
    flowModuleTool('AiDecisionTool', AiDecisionSchema),
  ]),
);

/**
 * Windmill's older flows give a flow-module tool's value without `tool_type` (its deserializer
 * falls back to a module value, windmill-common `flows.rs`): read as `flowmodule`, kept in the
 * current spelling.
 */
function withToolType(value: unknown): unknown {
  return typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !('tool_type' in value) &&
    'type' in value
    ? { ...value, tool_type: 'flowmodule' }
    : value;
}

export const ToolValueSchema = named(
  'ToolValue',
  'The implementation of an agent tool, discriminated by tool_type.',
  z.preprocess(
    withToolType,
    discriminatedUnionOf('tool_type', 'tool type', [
      FlowModuleToolSchema,
      McpToolValueSchema,
      WebsearchToolValueSchema,
      QuestionToolValueSchema,
    ]),
  ),
);

export const AgentToolSchema = named(
  'AgentTool',
  'A tool available to an AI agent: a flow module, an MCP server or web search.',
  z.looseObject({
    id: z
      .string()
      .regex(/^\S+$/, { error: 'must not contain spaces; use underscores instead (e.g. get_user_data)' }),
    summary: z.string().optional(),
    description: z.string().optional(),
    job_token_scopes: JobTokenScopesSchema.optional(),
    /**
     * A call of this tool (of every tool of an MCP server) waits for a person's approval: the step
     * parks (its job suspended) until it is answered, or for 1800 s.
     */
    requires_approval: z.boolean().optional(),
    value: ToolValueSchema,
  }),
);

export type FlowModule = z.infer<typeof FlowModuleSchema>;
export type FlowModuleValue = z.infer<typeof FlowModuleValueSchema>;
export type FlowModuleType = FlowModuleValue['type'];
export type ForloopFlow = z.infer<typeof ForloopFlowSchema>;
export type WhileloopFlow = z.infer<typeof WhileloopFlowSchema>;
export type BranchOneBranch = z.infer<typeof BranchOneBranchSchema>;
export type BranchOne = z.infer<typeof BranchOneSchema>;
export type BranchAllBranch = z.infer<typeof BranchAllBranchSchema>;
export type BranchAll = z.infer<typeof BranchAllSchema>;
export type AiDecision = z.infer<typeof AiDecisionSchema>;
export type AiAgent = z.infer<typeof AiAgentSchema>;
export type FlowModuleTool = z.infer<typeof FlowModuleToolSchema>;
export type ToolValue = z.infer<typeof ToolValueSchema>;
export type AgentTool = z.infer<typeof AgentToolSchema>;
