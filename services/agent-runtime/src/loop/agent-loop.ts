import {
  ReasoningEffortSchema,
  type AgentAction,
  type AgentStreamEvent,
  type AssistantMessage,
  type ChatFinalEvent,
  type ChatMessage,
  type ChatRequestInput,
  type InlineDataPart,
  type ReasoningEffort,
  type ToolCall,
  type ToolResultMessage,
} from '@flowmesh/contracts';
import { compactorFor } from '../compaction/agent-compaction.js';
import { recordAgentIteration } from '../telemetry/agent.metrics.js';
import type { ContextCompactor } from '../compaction/context-compactor.js';
import type { AgentAnswer, AgentCheckpoint, AgentProgress, CallProgress } from '../pause/agent-checkpoint.js';
import { answerAction, settleWaitingCalls } from '../pause/answered-calls.js';
import { parkedAt, requestAction } from '../pause/park.js';
import { callsOverCap } from '../caps/workspace-caps.js';
import { planTurn } from '../pause/turn-plan.js';
import type { PreparedTool, ToolCallOutcome } from '../tools/agent-tool.port.js';
import type { AgentBrain } from './agent-brain.js';
import { checkOutput, compile as compileOutputSchema, retryPrompt } from './output-schema.js';
import { parseArguments, runCall, sequentially, toolAnswer, withToolMedia } from './tool-calls.js';
import { addUsage, type TotalUsage } from './usage.js';

/** What the loop needs from outside: the model, a way to report actions, a log. */
export interface AgentLoopPorts {
  /** One model call through the llm-gateway; resolves to its final event. */
  chat(request: Omit<ChatRequestInput, 'actor' | 'workspace'>, signal: AbortSignal): Promise<ChatFinalEvent>;
  report(action: AgentAction, success: boolean): Promise<void>;
  /** Sets the success of a tool call reported before its tool ran, once the tool ended. */
  settle?(action: AgentAction, success: boolean): Promise<void>;
  log(message: string): void;
  /** How long tools that need approval wait for an answer. */
  readonly approvalTimeoutS: number;
  /** The step's stream (`streaming`): each tool's run and result. */
  readonly stream?: (event: AgentStreamEvent) => void;
  /** Told when the run starts and stops waiting on its tools (it then holds no slot). */
  readonly waitingOnTools?: (waiting: boolean) => void;
  /**
   * Keeps the run's progress where another replica finds it: the turn whose calls are about to
   * run, then what became of each call (its tool job, its result). Writes land in the order they
   * are made; `call` never rejects (a write that failed is logged: a replica taking over then
   * knows less, and runs that call again).
   */
  readonly progress?: {
    turn(progress: AgentProgress): Promise<void>;
    call(callId: string, call: CallProgress): Promise<void>;
  };
  /**
   * The id the job of call `callId` of model call `iteration` runs under: the same on every run
   * of the step (without it, each run starts a job of its own).
   */
  readonly toolJobId?: (iteration: number, callId: string) => string;
  /** Wraps each tool call (its span); by default it just runs. */
  readonly traceTool?: (
    call: ToolCall,
    tool: PreparedTool,
    run: () => Promise<ToolCallOutcome>,
  ) => Promise<ToolCallOutcome>;
}

/**
 * An agent taken up again: a parked one with its checkpoint and the answer (null: nobody answered
 * in time), or a running one whose replica stopped, from its last turn and what its calls did.
 */
export type ResumedAgent =
  | {
      readonly checkpoint: AgentCheckpoint;
      readonly answer: AgentAnswer | null;
      /**
       * Set when a replica already took the answer up and stopped while the approved calls ran:
       * what became of them (a call that ended is not run again, one whose job started is waited for).
       */
      readonly calls?: Readonly<Record<string, CallProgress>>;
    }
  | { readonly progress: AgentProgress; readonly calls: Readonly<Record<string, CallProgress>> };

export type AgentLoopOutcome =
  /** The model asked for approval or asked a question: the step waits, its state in the checkpoint. */
  | { parked: AgentCheckpoint; success?: undefined }
  | {
      success: true;
      output: unknown;
      messages: ChatMessage[];
      usage: TotalUsage;
      /** What the model saw last, answer included: the history with this run's part, as compacted. */
      context: ChatMessage[];
      /** Actions not reported yet (the answer's message): reported with the step's outcome. */
      lastActions: AgentAction[];
      /** With `compaction` memory: summarizes every older exchange (for a memory over its limit). */
      compactor?: ContextCompactor;
    }
  | {
      success: false;
      error: { name: string; message: string; class?: string };
      messages: ChatMessage[];
      usage: TotalUsage;
    };

/**
 * The agent: calls the model with the history, runs the tools it asks for and gives their
 * results back, until it answers without a tool call or `maxIterations` model calls are spent.
 * `history` is what the model sees before this run's user message; `messages` in the outcome is
 * this run's execution record (its user message and everything produced after it). A turn with
 * calls that need approval, or a question, parks the agent (`parked`); `resumed` takes it up again
 * where it stopped, the history and prompt skipped.
 */
export async function runAgentLoop(
  brain: AgentBrain,
  history: readonly ChatMessage[],
  tools: readonly PreparedTool[],
  ports: AgentLoopPorts,
  signal: AbortSignal,
  resumed?: ResumedAgent,
): Promise<AgentLoopOutcome> {
  // A schema that is not one fails the step before the model is asked anything.
  if (brain.outputSchema) compileOutputSchema(brain.outputSchema);
  const from = resumed && 'progress' in resumed ? resumed.progress : resumed?.checkpoint;
  const record: ChatMessage[] = [...(from?.record ?? [])];
  const attached = brain.attachments ?? [];
  if (!from && (brain.userMessage !== undefined || attached.length > 0))
    record.push({
      role: 'user',
      content: [
        ...(brain.userMessage !== undefined ? [{ type: 'text' as const, text: brain.userMessage }] : []),
        ...attached,
      ],
    });
  const usage: TotalUsage = from ? { ...from.usage } : { inputTokens: 0, outputTokens: 0 };
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  // The model's context starts as the execution record does, but compaction may rewrite it.
  let context: ChatMessage[] = from ? [...from.context] : [...history, ...record];
  const append = (...messages: ChatMessage[]) => {
    record.push(...messages);
    context.push(...messages);
  };
  const frame = {
    ...(brain.systemPrompt ? { system: brain.systemPrompt } : {}),
    ...(tools.length > 0 ? { tools: tools.map((tool) => tool.definition) } : {}),
  };
  const compactor = compactorFor(brain, ports, usage, signal);
  // Images and PDFs tools returned in this run, by call id: sent with their results, never stored.
  const media = new Map<string, readonly InlineDataPart[]>();
  const ask = (messages: ChatMessage[]) =>
    ports.chat(
      {
        provider: {
          kind: brain.provider.kind,
          resource: brain.provider.resource,
          model: brain.provider.model,
        },
        ...frame,
        messages: withToolMedia(messages, media),
        ...(frame.tools ? { toolChoice: 'auto' as const } : {}),
        ...(brain.outputSchema
          ? { responseFormat: { type: 'json_schema' as const, name: 'output', schema: brain.outputSchema } }
          : {}),
        ...(brain.temperature !== undefined ? { temperature: brain.temperature } : {}),
        ...(brain.webSearch ? { webSearch: true } : {}),
        ...(brain.maxCompletionTokens !== undefined ? { maxOutputTokens: brain.maxCompletionTokens } : {}),
        ...reasoningEffortOf(brain.provider.reasoning_effort),
      },
      signal,
    );

  // A call whose result is known (a replica ran it before it stopped) is not run again; one whose
  // tool job started is waited for, not started again.
  const runCalls = async (
    calls: readonly ToolCall[],
    iteration: number,
    known: Readonly<Record<string, CallProgress>> = {},
  ) => {
    if (calls.length === 0) return [];
    const one = async (call: ToolCall) => {
      const done = known[call.id]?.result;
      if (done) return done;
      const started = known[call.id]?.jobId;
      const id = started ?? ports.toolJobId?.(iteration, call.id);
      const { message: result, media: shown } = await runCall(
        call,
        byName,
        ports,
        signal,
        id === undefined ? undefined : { id, started: started !== undefined },
      );
      if (shown) media.set(call.id, shown);
      // Not waited for: progress is written in order, so the next turn's write follows it, and a
      // replica taking over before it lands waits for the call's job (kept) instead of starting it.
      if (!signal.aborted) void ports.progress?.call(call.id, { result });
      return result;
    };
    ports.waitingOnTools?.(true);
    try {
      return await (brain.parallel ? Promise.all(calls.map(one)) : sequentially(calls, one));
    } finally {
      ports.waitingOnTools?.(false);
    }
  };

  /**
   * The model asked for `calls`: those that can run now run (together when `parallel`), the rest
   * are refused with a reason, or the agent parks on the approval or question they need.
   */
  const playTurn = async (
    calls: readonly ToolCall[],
    iteration: number,
    known?: Readonly<Record<string, CallProgress>>,
  ): Promise<'aborted' | { parked: AgentCheckpoint } | undefined> => {
    // The model may always ask for several calls; `parallel` only decides whether they run together.
    // Calls past the workspace's cap are refused to the model, never run.
    const capped = callsOverCap(record, calls, brain.maxToolCalls);
    if (capped.over.size > 0)
      ports.log(`${capped.over.size} tool call(s) refused: ${capped.refusal.split(':')[0]}`);
    const plan = planTurn(
      calls.filter((call) => !capped.over.has(call.id)),
      byName,
      parseArguments,
    );
    const results = new Map<string, ToolResultMessage>();
    for (const call of calls)
      if (capped.over.has(call.id))
        results.set(call.id, toolAnswer(call, JSON.stringify({ error: capped.refusal }), true));
    for (const result of await runCalls(plan.now, iteration, known)) results.set(result.toolCallId, result);
    for (const call of calls) {
      const refusal = plan.refused.get(call.id);
      if (refusal !== undefined)
        results.set(call.id, toolAnswer(call, JSON.stringify({ error: refusal }), true));
    }
    if (signal.aborted) return 'aborted'; // handed back: nothing is recorded
    if (plan.wait) {
      const checkpoint = parkedAt(plan.wait, { record, context, usage, iteration, calls, results }, ports);
      await ports.report(requestAction(plan.wait, checkpoint), true);
      ports.log(
        `the agent waits for ${plan.wait.kind === 'approval' ? 'an approval' : 'an answer to its question'} (${checkpoint.waiting.callId}) until ${checkpoint.waiting.until}`,
      );
      return { parked: checkpoint };
    }
    append(...calls.map((call) => results.get(call.id)!));
    return undefined;
  };

  if (resumed && 'progress' in resumed) {
    const { progress, calls: known } = resumed;
    const done = progress.calls.filter((call) => known[call.id]?.result).length;
    ports.log(
      `taken over after model call ${progress.iteration}: ${done} of its ${progress.calls.length} tool call(s) had ended and are not run again`,
    );
    const turn = await playTurn(progress.calls, progress.iteration, known);
    if (turn === 'aborted') return aborted(record, usage);
    if (turn) return turn;
  } else if (resumed) {
    const { checkpoint, answer, calls: known } = resumed;
    // Taken up again after a replica stopped while it ran the approved calls: the answer is on
    // the step already, and the calls that ended are not run again (000 runs them twice).
    if (known) {
      const done = Object.values(known).filter((call) => call.result).length;
      ports.log(`taken over while the answered calls ran: ${done} of them had ended and are not run again`);
    } else {
      await ports.report(answerAction(checkpoint, answer), true);
      ports.log(
        answer
          ? `${checkpoint.waiting.kind === 'approval' ? 'approval' : 'question'} ${checkpoint.waiting.callId} answered by ${answer.approver}: the agent goes on`
          : `nobody answered ${checkpoint.waiting.callId} within ${checkpoint.waiting.timeoutS} s: the agent goes on without it`,
      );
    }
    const settled = settleWaitingCalls(checkpoint, answer, new Set(byName.keys()));
    const results = new Map(Object.entries(checkpoint.results));
    const approved = checkpoint.calls.filter((call) => settled.get(call.id)?.run === true);
    for (const result of await runCalls(approved, checkpoint.iteration, known))
      results.set(result.toolCallId, result);
    for (const call of checkpoint.calls) {
      const settlement = settled.get(call.id);
      if (settlement && !settlement.run)
        results.set(call.id, toolAnswer(call, settlement.text, settlement.isError));
    }
    append(...checkpoint.calls.map((call) => results.get(call.id)!));
  }

  let outputRetried = false;
  for (let iteration = (from?.iteration ?? 0) + 1; iteration <= brain.maxIterations; iteration++) {
    if (compactor) context = (await compactor.beforeRequest(context, frame)) ?? context;
    let final = await ask(context);
    recordAgentIteration(brain.provider.kind, brain.provider.model);
    if (final.type === 'error' && final.error.class === 'context_window_exceeded' && compactor) {
      // Once: with every older exchange summarized, the same request again.
      const shorter = await compactor.afterOverflow(context, frame);
      if (shorter) {
        context = shorter;
        final = await ask(context);
      }
    }
    if (final.type === 'error') {
      return {
        success: false,
        error: {
          name: 'AgentModelError',
          message: final.error.message,
          class: final.error.class,
          ...(final.error.fault ? { fault: final.error.fault } : {}),
        },
        messages: record,
        usage,
      };
    }
    compactor?.recordUsage(final.usage?.inputTokens, context.length);
    addUsage(usage, final.usage);
    // The provider searched the web for this answer (a `websearch` tool).
    if (final.usage?.webSearches) await ports.report({ type: 'web_search' }, true);
    const answer = final.message;
    append(answer);
    const text = textOf(answer);
    const said: AgentAction | undefined = text ? { type: 'message', content: text } : undefined;
    const calls = answer.toolCalls ?? [];
    if (calls.length === 0) {
      const checked = brain.outputSchema
        ? checkOutput(brain.outputSchema, text)
        : { ok: true as const, output: text };
      if (checked.ok) {
        // The answer's message goes with the step's outcome: no report of its own to wait for.
        const done = {
          success: true as const,
          output: checked.output,
          messages: record,
          usage,
          context,
          lastActions: said ? [said] : [],
        };
        return compactor ? { ...done, compactor } : done;
      }
      if (said) await ports.report(said, true);
      // Once: the model is told what was wrong and asked again (it counts as a model call).
      if (!outputRetried && iteration < brain.maxIterations) {
        outputRetried = true;
        ports.log(
          `the answer does not match output_schema (${checked.problems.join('; ')}): asked once more`,
        );
        append({ role: 'user', content: [{ type: 'text', text: retryPrompt(checked.problems) }] });
        continue;
      }
      return {
        success: false,
        error: {
          name: 'AgentOutputError',
          message: `the model's answer does not match output_schema${outputRetried ? ', asked twice' : ''}: ${checked.problems.join('; ')}`,
        },
        messages: record,
        usage,
      };
    }

    if (said) await ports.report(said, true);
    // Kept before the calls run: a replica taking over goes on from this turn.
    await ports.progress?.turn({ record, context, usage, iteration, calls });
    const turn = await playTurn(calls, iteration);
    if (turn === 'aborted') return aborted(record, usage);
    if (turn) return turn;
  }
  return {
    success: false,
    error: {
      name: 'MaxIterationsReached',
      message: `the agent made ${brain.maxIterations} model calls (max_iterations) without a final answer`,
    },
    messages: record,
    usage,
  };
}

/** A run handed back while its tools ran (its replica stops): the outcome is never reported. */
function aborted(record: ChatMessage[], usage: TotalUsage): AgentLoopOutcome {
  return {
    success: false,
    error: { name: 'AgentStopped', message: 'the agent-runtime replica stopped; another one goes on' },
    messages: record,
    usage,
  };
}

function textOf(message: AssistantMessage): string {
  return message.content
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
    .map((part) => part.text)
    .join('');
}

/** The provider's `reasoning_effort` when the gateway knows it; anything else is not sent. */
function reasoningEffortOf(value: string | undefined): { reasoningEffort?: ReasoningEffort } {
  const parsed = ReasoningEffortSchema.safeParse(value);
  return parsed.success ? { reasoningEffort: parsed.data } : {};
}
