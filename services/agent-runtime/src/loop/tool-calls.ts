import type {
  AgentAction,
  ChatMessage,
  ChatRequestMessage,
  InlineDataPart,
  ToolCall,
  ToolResultMessage,
} from '@flowmesh/contracts';
import type { PreparedTool, ToolJob } from '../tools/agent-tool.port.js';
import type { AgentLoopPorts } from './agent-loop.js';

/** What the model reads as the result of `call`. */
export function toolAnswer(call: ToolCall, content: string, isError: boolean): ToolResultMessage {
  return {
    role: 'tool',
    toolCallId: call.id,
    name: call.name,
    content: [{ type: 'text', text: content }],
    ...(isError ? { isError: true } : {}),
  };
}

/** The call's arguments as an object, or why they are not one. */
export function parseArguments(call: ToolCall): Record<string, unknown> | string {
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return 'the arguments are not valid JSON';
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return 'the arguments must be a JSON object';
  return args as Record<string, unknown>;
}

/**
 * Runs one call of the model, as its tool says, as `job` when its tool runs jobs (a job an earlier
 * replica started is waited for instead of starting another).
 */
export async function runCall(
  call: ToolCall,
  tools: ReadonlyMap<string, PreparedTool>,
  ports: AgentLoopPorts,
  signal: AbortSignal,
  job?: ToolJob,
): Promise<{ message: ToolResultMessage; media?: readonly InlineDataPart[] }> {
  const answer = (content: string, isError: boolean) => ({ message: toolAnswer(call, content, isError) });
  const tool = tools.get(call.name);
  // A tool that left the roster while the agent was parked is no longer available.
  if (!tool) return answer(JSON.stringify({ error: `there is no tool named ${call.name} (any more)` }), true);
  const args = parseArguments(call);
  if (typeof args === 'string') return answer(JSON.stringify({ error: args }), true);
  let reported: Promise<void> = Promise.resolve();
  let announced: AgentAction | undefined;
  // A call resumed on the job an earlier replica started was announced by that replica.
  if (!job?.started) ports.stream?.({ type: 'tool_execution', call_id: call.id, function_name: call.name });
  const runTool = () =>
    tool.run(
      args,
      (action) => {
        // The job is kept with the run's progress before the step shows it.
        const jobId = action.type === 'tool_call' ? action.job_id : undefined;
        announced = action;
        reported = (
          jobId ? (ports.progress?.call(call.id, { jobId }) ?? Promise.resolve()) : Promise.resolve()
        ).then(() => ports.report(action, true));
      },
      signal,
      job,
    );
  const outcome = await (ports.traceTool ? ports.traceTool(call, tool, runTool) : runTool());
  await reported;
  // Reported as it started; a call whose tool failed reads false in `agent_actions_success`.
  if (announced && !outcome.ok) await ports.settle?.(announced, false);
  ports.stream?.({
    type: 'tool_result',
    call_id: call.id,
    function_name: call.name,
    result: outcome.content,
    success: outcome.ok,
  });
  ports.log(
    `tool ${call.name}${outcome.jobId ? ` (job ${outcome.jobId})` : ''}: ${outcome.ok ? 'succeeded' : 'failed'}`,
  );
  return { ...answer(outcome.content, !outcome.ok), ...(outcome.media ? { media: outcome.media } : {}) };
}

/** Base64 characters of tool media one model request carries: it crosses NATS (1 MB payloads). */
const MEDIA_BUDGET_CHARS = 640 * 1024;

/**
 * The messages as the model is sent them: each tool result followed by the images and PDFs its
 * tool returned in this run (`media`, by call id), which the stored messages only name; the
 * newest first while they fit `MEDIA_BUDGET_CHARS` (older ones stay named only).
 */
export function withToolMedia(
  messages: readonly ChatMessage[],
  media: ReadonlyMap<string, readonly InlineDataPart[]>,
): ChatRequestMessage[] {
  if (media.size === 0) return [...messages];
  let budget = MEDIA_BUDGET_CHARS;
  const out: ChatRequestMessage[] = [...messages];
  for (let i = out.length - 1; i >= 0; i--) {
    const message = out[i];
    const parts = message.role === 'tool' ? media.get(message.toolCallId) : undefined;
    if (!parts || message.role !== 'tool') continue;
    const size = parts.reduce((sum, part) => sum + part.data.length, 0);
    if (size > budget) continue;
    budget -= size;
    out[i] = { ...message, content: [...message.content, ...parts] };
  }
  return out;
}

export async function sequentially<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await run(item));
  return results;
}
