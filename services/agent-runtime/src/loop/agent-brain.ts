import {
  AGENT_BRAIN_INPUTS,
  FLOW_LOCAL_AGENT_INPUTS,
  AiAgentInputValueSchemas,
  AiAgentResourceValueSchema,
  AiAgentSchema,
  MemoryConfigSchema,
  MeshError,
  ProviderConfigSchema,
  QUESTION_TOOL_NAME,
  WEB_SEARCH_TOOL_NAME,
  type AgentTool,
  type AgentToolInputs,
  type AttachmentPart,
  type UserAttachment,
  type InputTransform,
  type MemoryMessage,
} from '@flowmesh/contracts';
import type { z } from 'zod';

type Memory = z.infer<typeof MemoryConfigSchema>;

/** Everything one run of an agent step needs, read and checked from the step and its agent. */
export interface AgentBrain {
  readonly provider: z.infer<typeof ProviderConfigSchema>;
  /** `image`: one picture drawn from the user message, stored, instead of the loop's text answer. */
  readonly outputType: 'text' | 'image';
  readonly systemPrompt?: string;
  readonly userMessage?: string;
  /** The objects the user message attaches (`user_attachments`), as the step names them. */
  readonly userAttachments: readonly UserAttachment[];
  /** Those objects checked and described, as the user message holds them (set before the loop). */
  readonly attachments?: readonly AttachmentPart[];
  readonly temperature?: number;
  readonly maxCompletionTokens?: number;
  readonly outputSchema?: Record<string, unknown>;
  readonly maxIterations: number;
  /** Tool calls the step may make in all (the workspace's `max_agent_tool_calls`); absent: no cap. */
  readonly maxToolCalls?: number;
  readonly memory: Memory | undefined;
  /** The step's own memory id: set only when `stepNamesMemory`, and empty when it evaluated to nothing. */
  readonly memoryId?: string;
  /**
   * Whether the step names its memory (`memory_id` in its inputs, not a static empty value): it
   * then overrides the run's memory id, even when it evaluates to nothing.
   */
  readonly stepNamesMemory: boolean;
  readonly previousMessages: readonly MemoryMessage[];
  readonly tools: readonly AgentTool[];
  readonly toolInputs: AgentToolInputs;
  readonly parallel: boolean;
  /** The roster has a `websearch` tool: each model call lets the provider search the web itself. */
  readonly webSearch: boolean;
  /** Publish the run's deltas and tool runs as they happen (`streaming`). */
  readonly streaming: boolean;
}

/** Windmill's default: ten rounds of model call and tools. */
export const DEFAULT_MAX_ITERATIONS = 10;

/** A step input that cannot be used: the flow author's mistake, named by its field. */
export function inputError(field: string, reason: string): MeshError {
  return new MeshError('VALIDATION_FAILED', `${field}: ${reason}`, { param: field });
}

function checked<K extends keyof typeof AiAgentInputValueSchemas>(
  args: Record<string, unknown>,
  key: K,
): z.infer<(typeof AiAgentInputValueSchemas)[K]> | undefined {
  const value = args[key];
  // An input evaluated to nothing is unset (a static empty value reads as unset, as in the editor).
  if (value === undefined || value === null || value === '') return undefined;
  const parsed = AiAgentInputValueSchemas[key].safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `.${issue.path.join('.')}` : '';
    throw inputError(`input_transforms.${key}${where}`, issue?.message ?? 'is not valid');
  }
  return parsed.data as z.infer<(typeof AiAgentInputValueSchemas)[K]>;
}

/**
 * The brain of a step: its own evaluated inputs, or, for a step linked to an `ai_agent` resource
 * (`linked`, its value as stored), the resource's brain and tools with the step's flow-local
 * inputs on top. `enabled_tools` narrows the roster: absent carries every tool, a list the ones
 * it names, an empty list none.
 */
export function readBrain(
  module: Record<string, unknown>,
  stepArgs: Record<string, unknown>,
  linked?: unknown,
): AgentBrain {
  const step = AiAgentSchema.safeParse(module);
  if (!step.success) throw inputError('module', step.error.issues[0]?.message ?? 'is not an aiagent step');
  let args = stepArgs;
  let tools = step.data.tools ?? [];
  if (linked !== undefined) {
    const agent = AiAgentResourceValueSchema.safeParse(linked);
    if (!agent.success) {
      const issue = agent.error.issues[0];
      throw inputError(
        `agent (${step.data.agent}).${issue?.path.join('.') ?? ''}`,
        issue?.message ?? 'is not an ai_agent',
      );
    }
    const brain = Object.fromEntries(
      AGENT_BRAIN_INPUTS.filter((key) => key in agent.data).map((key) => [key, agent.data[key]]),
    );
    args = { ...brain, ...pickFlowLocal(stepArgs) };
    tools = agent.data.tools ?? [];
  }

  const provider = ProviderConfigSchema.safeParse(args.provider);
  if (!provider.success) {
    const issue = provider.error.issues[0];
    throw inputError(
      `input_transforms.provider${issue?.path.length ? `.${issue.path.join('.')}` : ''}`,
      args.provider === undefined ? 'is required' : (issue?.message ?? 'is not a provider'),
    );
  }
  const memory =
    args.memory === undefined || args.memory === null ? undefined : MemoryConfigSchema.safeParse(args.memory);
  if (memory && !memory.success)
    throw inputError('input_transforms.memory', memory.error.issues[0]?.message ?? 'is not a memory setting');
  const outputType = checked(args, 'output_type') ?? 'text';

  const enabled = checked(args, 'enabled_tools');
  const roster = enabled === undefined ? tools : tools.filter((tool) => enabled.includes(rosterName(tool)));
  const userMessage = checked(args, 'user_message');
  const previousMessages = checked(args, 'previous_messages') ?? [];
  if (outputType === 'image' && userMessage === undefined)
    throw inputError(
      'input_transforms.user_message',
      'is required: image output always needs a user message',
    );
  if (userMessage === undefined && previousMessages.length === 0) {
    throw inputError('input_transforms.user_message', 'is required (or previous_messages, with memory off)');
  }
  return {
    provider: provider.data,
    outputType,
    systemPrompt: checked(args, 'system_prompt'),
    userMessage,
    userAttachments: checked(args, 'user_attachments') ?? [],
    temperature: checked(args, 'temperature'),
    maxCompletionTokens: checked(args, 'max_completion_tokens'),
    outputSchema: checked(args, 'output_schema'),
    maxIterations: checked(args, 'max_iterations') ?? DEFAULT_MAX_ITERATIONS,
    memory: memory?.data,
    memoryId: checked(args, 'memory_id'),
    stepNamesMemory: namesMemory(step.data.input_transforms.memory_id),
    previousMessages,
    tools: roster,
    toolInputs: step.data.tool_inputs ?? {},
    parallel: step.data.parallel === true,
    webSearch: roster.some((tool) => (tool.value as { tool_type: string }).tool_type === 'websearch'),
    streaming: checked(args, 'streaming') === true,
  };
}

/** A present key is the step's choice; a static empty value reads as unset (as in the editor). */
function namesMemory(transform: InputTransform | undefined): boolean {
  if (transform === undefined) return false;
  if (transform.type !== 'static') return true;
  return transform.value !== undefined && transform.value !== null && transform.value !== '';
}

function pickFlowLocal(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).filter(([key]) => (FLOW_LOCAL_AGENT_INPUTS as readonly string[]).includes(key)),
  );
}

/** The model calls a flow module tool by its summary (OpenFlow checks it is a tool name). */
export function toolName(tool: AgentTool): string {
  return tool.summary ?? tool.id;
}

/**
 * How `enabled_tools` names a tool: as the model is shown it, or, for an entry the model is shown
 * nothing of, by what identifies it: an MCP server by its resource path (all its tools), a web
 * search by its reserved name.
 */
function rosterName(tool: AgentTool): string {
  const value = tool.value as { tool_type: string; resource_path?: string };
  if (value.tool_type === 'mcp') return value.resource_path ?? tool.id;
  if (value.tool_type === 'websearch') return WEB_SEARCH_TOOL_NAME;
  if (value.tool_type === 'question') return QUESTION_TOOL_NAME;
  return toolName(tool);
}
