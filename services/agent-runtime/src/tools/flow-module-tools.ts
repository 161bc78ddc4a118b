import {
  MeshError,
  type AgentTool,
  type AgentToolInputs,
  type EvaluatedToolInput,
  type InputTransform,
  type JobResultReply,
  type OrchestratorJobsClient,
  type PinnedAgents,
  type RecordingRef,
} from '@flowmesh/contracts';
import { isNoReply } from '@flowmesh/messaging';
import { inputError, toolName } from '../loop/agent-brain.js';
import { cappedResult, type PreparedTool, type ToolCallOutcome, type ToolJob } from './agent-tool.port.js';
import { withoutAnswerableTools } from './nested-agent-tools.js';

/** What a tool call runs as and where: the step's identity, workspace and worker tag. */
export interface ToolRunContext {
  readonly token: string;
  readonly workspace: string;
  readonly tag?: string;
  readonly timeoutMs: number;
  /** The tools' `javascript` inputs, evaluated by the orchestrator when the step started. */
  readonly evaluatedInputs: Readonly<Record<string, Readonly<Record<string, EvaluatedToolInput>>>>;
  /** The agents the run pinned: a nested agent tool's run uses the same definitions. */
  readonly pinnedAgents?: PinnedAgents;
  /** The saved flows the step runs inside: the flows its tools run nest under them. */
  readonly flowChain?: readonly string[];
  /** The run records or replays its model calls: the flows its tools run do the same. */
  readonly recording?: RecordingRef;
  /** How deep the step nests as an agent tool (0: a top-level step); its agent tools run one deeper. */
  readonly agentDepth?: number;
}

/** Tools run as a flow of their one module: nested agents, decisions, loops, branches, identity. */
const ONE_MODULE_FLOWS = new Set([
  'aiagent',
  'aidecision',
  'forloopflow',
  'whileloopflow',
  'branchone',
  'branchall',
  'identity',
]);

/** The flow module types a tool may be: a script, a flow, or a module run as a flow of its own. */
export const RUNNABLE_MODULES = new Set(['rawscript', 'script', 'flow', ...ONE_MODULE_FLOWS]);

/**
 * A flow module tool (`rawscript`, `script`, `flow`, a nested `aiagent`), prepared for the model:
 * each call runs as a job of the orchestrator, as the step's identity; its inputs are the tool's
 * input transforms
 * with the step's `tool_inputs` over them: `ai` inputs are what the model fills (the parameters
 * it is shown), `static` ones are fixed, `javascript` ones are what they evaluated to in the flow
 * when the step started (one that failed to evaluate fails each call of the tool, telling the
 * model why). The model knows the tool by its `summary`, the step's
 * `tool_inputs` and actions by its `id`.
 */
export function prepareFlowModuleTool(
  tool: AgentTool,
  field: string,
  overrides: AgentToolInputs,
  jobs: OrchestratorJobsClient,
  context: ToolRunContext,
): PreparedTool {
  const value = tool.value as {
    type?: string;
    input_transforms?: Record<string, InputTransform>;
    iterator?: InputTransform;
  };
  // A loop's iterator is an input like the others: the model may fill it (`ai`).
  const own = { ...(value.input_transforms ?? {}), ...(value.iterator ? { iterator: value.iterator } : {}) };
  const transforms = { ...own, ...(overrides[tool.id] ?? {}) };
  const fixed: Record<string, unknown> = {};
  const filled: string[] = [];
  const unusable: string[] = [];
  for (const [name, transform] of Object.entries(transforms)) {
    if (transform.type === 'ai') filled.push(name);
    else if (transform.type === 'static') fixed[name] = transform.value;
    else {
      const evaluated = context.evaluatedInputs[tool.id]?.[name];
      // Only a tool added to a linked agent after the step started goes unevaluated.
      if (!evaluated)
        throw inputError(
          `${field}.input_transforms.${name}`,
          'was not evaluated when the step started (was the agent changed meanwhile?); run the step again',
        );
      if (evaluated.error !== undefined) unusable.push(`${name}: ${evaluated.error}`);
      else if ('value' in evaluated) fixed[name] = evaluated.value;
    }
  }
  const name = toolName(tool);
  const description = tool.description;
  return {
    tool,
    definition: {
      name,
      ...(description ? { description } : {}),
      parameters: {
        type: 'object',
        properties: Object.fromEntries(filled.map((input) => [input, { description: input }])),
        required: filled,
        additionalProperties: false,
      },
    },
    run: async (args, onStarted, signal, job) =>
      unusable.length > 0
        ? {
            ok: false,
            content: JSON.stringify({
              error: { name: 'ToolInputError', message: `${tool.id} cannot run: ${unusable.join('; ')}` },
            }),
          }
        : runJob(
            jobs,
            context,
            tool,
            value as ModuleValue,
            { ...pick(args, filled), ...fixed },
            (jobId) =>
              onStarted({ type: 'tool_call', job_id: jobId, function_name: name, module_id: tool.id }),
            signal,
            job,
          ),
  };
}

interface ModuleValue {
  type:
    | 'aidecision'
    | 'rawscript'
    | 'script'
    | 'flow'
    | 'aiagent'
    | 'forloopflow'
    | 'whileloopflow'
    | 'branchone'
    | 'branchall'
    | 'identity';
  iterator?: InputTransform;
  tools?: AgentTool[];
  content?: string;
  language?: string;
  lock?: string;
  path?: string;
  hash?: string;
  tag?: string;
}

function pick(args: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((name) => name in args).map((name) => [name, args[name]]));
}

/** A caller of the orchestrator's jobs API as the step's identity (with the id its job takes). */
type JobsCaller = { actor: { token: string }; workspace: string; job_id?: string };

/**
 * One call as a job of the orchestrator (under `job.id` when given), waited for; a job an earlier
 * replica started for this call (`job.started`) is waited for instead (its action was reported then).
 */
async function runJob(
  jobs: OrchestratorJobsClient,
  context: ToolRunContext,
  tool: AgentTool,
  value: ModuleValue,
  args: Record<string, unknown>,
  onStarted: (jobId: string) => void,
  signal: AbortSignal,
  job?: ToolJob,
): Promise<ToolCallOutcome> {
  const caller: JobsCaller = { actor: { token: context.token }, workspace: context.workspace };
  let jobId = job?.started ? job.id : undefined;
  if (jobId === undefined) {
    try {
      // The same id as any earlier run of this call: the orchestrator starts one job for it.
      const given = job ? { job_id: job.id } : {};
      jobId = await startJob(
        jobs,
        { ...caller, ...given },
        value.tag ?? context.tag,
        tool,
        value,
        args,
        context,
      );
    } catch (error) {
      // The orchestrator did not answer (restarting): the step runs again, and starts the job
      // under the same id, which starts it at most once.
      if (isNoReply(error)) throw error;
      return {
        ok: false,
        content: JSON.stringify({ error: { name: 'ToolNotStarted', message: messageOf(error) } }),
      };
    }
    onStarted(jobId);
  }
  const result = await waitForResult(jobs, { ...caller, id: jobId }, context.timeoutMs, signal);
  // The step is being handed back (its replica stops): the tool job is left to finish.
  if (!result && signal.aborted)
    return { ok: false, jobId, content: JSON.stringify({ error: 'the agent stopped' }) };
  if (!result) {
    await jobs
      .cancel({ ...caller, id: jobId, reason: `the agent's tool ${tool.id} timed out` })
      .catch(() => undefined);
    return {
      ok: false,
      jobId,
      content: JSON.stringify({
        error: { name: 'ToolTimeout', message: `${tool.id} did not finish within ${context.timeoutMs} ms` },
      }),
    };
  }
  // A nested agent's or a decision's answer is its output; messages and usage stay on its own job.
  const answer =
    (value.type === 'aiagent' || value.type === 'aidecision') && result.success === true
      ? (result.result as { output?: unknown } | null)?.output
      : result.result;
  return { ok: result.success === true, jobId, content: cappedResult(JSON.stringify(answer ?? null)) };
}

/** Starts the job that runs one call: a flow of the module for agents, decisions and flow modules. */
async function startJob(
  jobs: OrchestratorJobsClient,
  caller: JobsCaller,
  tag: string | undefined,
  tool: AgentTool,
  value: ModuleValue,
  args: Record<string, unknown>,
  run: Pick<ToolRunContext, 'pinnedAgents' | 'flowChain' | 'recording' | 'agentDepth'>,
): Promise<string> {
  const tagged = tag ? { tag } : {};
  // A flow the tool runs nests under the step's saved flows (scripts nest nothing), and records
  // or replays its model calls with the step's run.
  const nested = {
    ...tagged,
    ...(run.flowChain?.length ? { flow_chain: [...run.flowChain] } : {}),
    ...(run.recording ? { recording: run.recording } : {}),
  };
  const pinned = value.type === 'aiagent' && run.pinnedAgents ? { pinned_agents: run.pinnedAgents } : {};
  const started =
    value.type === 'aiagent' || value.type === 'aidecision'
      ? await jobs.runFlow({
          ...caller,
          value: stepFlow(tool, value, args),
          args: {},
          ...nested,
          ...pinned,
          ...(value.type === 'aiagent' ? { agent_tool: true, agent_depth: (run.agentDepth ?? 0) + 1 } : {}),
        })
      : ONE_MODULE_FLOWS.has(value.type)
        ? await jobs.runFlow({ ...caller, value: oneModuleFlow(tool, value, args), args, ...nested })
        : value.type === 'flow'
          ? await jobs.runFlow({ ...caller, path: value.path!, args, ...nested })
          : await jobs.runScript({
              ...caller,
              ...(value.type === 'script'
                ? { path: value.path!, ...(value.hash ? { hash: value.hash } : {}) }
                : {
                    content: value.content ?? '',
                    language: value.language ?? 'bun',
                    ...(value.lock ? { lock: value.lock } : {}),
                  }),
              args,
              ...tagged,
            });
  return started.job_id;
}

/**
 * A loop, a branch or an identity as a flow of that one module: its iterator fixed to what the
 * model or the flow gave, the call's arguments the flow's input (`flow_input.<name>`).
 */
function oneModuleFlow(tool: AgentTool, value: ModuleValue, args: Record<string, unknown>) {
  const { tool_type: _toolType, ...module } = value as ModuleValue & { tool_type?: string };
  const iterator = 'iterator' in args ? { iterator: { type: 'static', value: args.iterator } } : {};
  return { modules: [{ id: tool.id, value: { ...module, ...iterator } }] };
}

/**
 * A nested agent or a decision as a flow of that one step, run as its own job (so it has a job,
 * actions and a result like any step): its inputs fixed to what the model and the flow gave (a
 * decision's `state` is the model's, typically). As 000 says, a nested agent is never offered the
 * question tool or a tool that requires approval: it has no one to ask.
 */
function stepFlow(tool: AgentTool, value: ModuleValue, args: Record<string, unknown>) {
  const { tool_type: _toolType, ...module } = value as ModuleValue & { tool_type?: string };
  const inputs = Object.fromEntries(
    Object.entries(args).map(([name, arg]) => [name, { type: 'static', value: arg }]),
  );
  if (value.type === 'aidecision')
    return { modules: [{ id: tool.id, value: { ...module, input_transforms: inputs } }] };
  // Its own inline tools are left out here; a linked agent's, by agent-runtime (`agent_tool`).
  const tools = withoutAnswerableTools(value.tools ?? []);
  return { modules: [{ id: tool.id, value: { ...module, tools, input_transforms: inputs } }] };
}

/** How long one wait for a tool job's result lasts: an orchestrator that died holding it costs this much. */
const RESULT_WAIT_MS = 5_000;

/**
 * The job's result once it ends (the orchestrator answers when it does, up to 5 s a request,
 * asked again until `timeoutMs`; an orchestrator that does not answer, restarting, is asked again).
 * Undefined on timeout, or once `signal` aborts.
 */
async function waitForResult(
  jobs: OrchestratorJobsClient,
  request: { actor: { token: string }; workspace: string; id: string },
  timeoutMs: number,
  signal: AbortSignal,
): Promise<JobResultReply | undefined> {
  const deadline = Date.now() + timeoutMs;
  // A replica that stops hands the step back at once, not when the pending wait answers.
  const stopped = new Promise<undefined>((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
  for (;;) {
    const left = Math.max(0, Math.min(deadline - Date.now(), RESULT_WAIT_MS));
    const asked = jobs
      .waitResult({ ...request, timeout_ms: left }, { timeoutMs: left + RESULT_WAIT_MS })
      .catch(async (error: unknown) => {
        if (!isNoReply(error) || Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
        return { completed: false } as const;
      });
    const reply = await Promise.race([asked, stopped]);
    if (reply?.completed) return reply;
    if (!reply || Date.now() >= deadline) return undefined;
  }
}

function messageOf(error: unknown): string {
  return error instanceof MeshError || error instanceof Error ? error.message : String(error);
}
