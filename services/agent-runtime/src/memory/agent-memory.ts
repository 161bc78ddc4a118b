import {
  createMemoryClient,
  lastMessagesWindow,
  type ChatMessage,
  type MemoryMessage,
} from '@flowmesh/contracts';
import type { MeshClient } from '@flowmesh/messaging';
import type { AgentBrain } from '../loop/agent-brain.js';

/** Where this run's history comes from and where it goes back to. */
export interface HistorySource {
  /** What the model sees before this run's user message. */
  readonly history: ChatMessage[];
  /** Extra system text (`system` messages of previous_messages). */
  readonly system: string[];
  /** Writes the memory back after a successful answer; absent when the run keeps no memory. */
  readonly save?: (run: RunMessages) => Promise<void>;
}

/** What a successful run hands to its memory. */
export interface RunMessages {
  /** The execution record: this run's user message and everything after it. */
  readonly record: readonly ChatMessage[];
  /** The model's context at the end (the history and this run's part, as compacted). */
  readonly context: readonly ChatMessage[];
  /** Summarizes every older exchange, once, when a `compaction` memory is over its size limit. */
  readonly checkpoint?: (messages: ChatMessage[]) => Promise<ChatMessage[] | undefined>;
}

export interface MemoryContext {
  readonly token: string;
  readonly workspace: string;
  readonly flowPath?: string;
  readonly stepId: string;
  /** The memory id the run was started with (`flow_status.memory_id`). */
  readonly runMemoryId?: string;
  readonly log: (message: string) => void;
  /**
   * Takes the step's turn at its memory (`MemoryTurns`) before it is loaded; the job holding it
   * then saves as `heldBy`. Absent: no turns are taken.
   */
  readonly turn?: { readonly jobId: string; readonly take: (memoryKey: string) => Promise<void> };
}

/**
 * Reconciles the step's memory settings, once per run, as 000 describes:
 * - `window` / `compaction`: the memory named by the step's `memory_id`, else by the run's
 *   (memory-service keys it per flow and step); a step `memory_id` that evaluates to nothing runs
 *   stateless rather than fall back to the run's; `previous_messages` is ignored;
 * - off or absent: `previous_messages`, else nothing; `memory_id` is ignored;
 * - the older `manual` replays its list, `auto` the run's id, else its baked-in one (off without
 *   a count); neither reads the step's history inputs.
 * Every ignored input and stateless fallback is logged.
 */
export async function loadHistory(
  brain: AgentBrain,
  mesh: MeshClient,
  context: MemoryContext,
): Promise<HistorySource> {
  const memory = brain.memory;
  const kind = memory?.kind ?? 'off';
  if (kind === 'manual') return fromMessages((memory as { messages: MemoryMessage[] }).messages);
  if (kind === 'off' || (kind === 'auto' && !(memory as { context_length?: number }).context_length)) {
    if (brain.memoryId) context.log('memory_id is ignored: memory is off');
    return fromMessages(brain.previousMessages);
  }
  if (brain.previousMessages.length > 0) context.log(`previous_messages is ignored: memory is ${kind}`);
  const key = memoryKey(brain, context);
  if (!key) return { history: [], system: [] };
  const client = createMemoryClient(mesh);
  const where = {
    actor: { token: context.token },
    workspace: context.workspace,
    // A preview run keeps memory too, as in Windmill: under the path its request names, else none.
    flowPath: context.flowPath ?? '',
    memoryKey: key,
    stepId: context.stepId,
  };
  // Another run on this memory goes first, or after this one's save: neither loses the other's turn.
  await context.turn?.take(key);
  const heldBy = context.turn ? { heldBy: context.turn.jobId } : {};
  // All of it: the save writes the whole memory back; the model sees the window memory-service would give.
  const stored = (await client.load(where)).messages;
  const windowLength =
    kind === 'compaction' ? undefined : (memory as { context_length?: number }).context_length;
  return {
    history: windowLength === undefined ? stored : lastMessagesWindow(stored, windowLength),
    system: [],
    save: async (run) => {
      // A window memory grows by the record; a compaction memory is the model's context, summaries included.
      const mode = kind === 'compaction' ? 'compaction' : 'window';
      let messages = mode === 'compaction' ? [...run.context] : [...stored, ...run.record];
      let reply = await client.save({ ...where, ...heldBy, mode, messages });
      if (reply.status === 'compaction_required') {
        // Over the size limit: one checkpoint of every older exchange, then the service measures
        // again (and keeps the largest suffix of whole exchanges that fits if it is still over).
        messages = (await run.checkpoint?.(messages)) ?? messages;
        reply = await client.save({ ...where, ...heldBy, mode, compacted: true, messages });
      }
      if (reply.notice) context.log(reply.notice);
    },
  };
}

/** The memory id this run reads and writes; undefined (logged) when it runs stateless. */
function memoryKey(brain: AgentBrain, context: MemoryContext): string | undefined {
  const kind = brain.memory?.kind;
  if (kind === 'auto') {
    const key = context.runMemoryId ?? (brain.memory as { memory_id?: string }).memory_id;
    if (!key) context.log('memory is auto but the run has no memory id: the agent runs stateless');
    return key;
  }
  if (brain.stepNamesMemory) {
    if (!brain.memoryId)
      context.log(
        `memory is ${kind} and the step's memory_id evaluated to nothing: the agent runs stateless`,
      );
    return brain.memoryId;
  }
  if (!context.runMemoryId)
    context.log(
      `memory is ${kind} but neither the step nor the run names a memory id: the agent runs stateless`,
    );
  return context.runMemoryId;
}

function fromMessages(messages: readonly MemoryMessage[]): HistorySource {
  const history: ChatMessage[] = [];
  const system: string[] = [];
  for (const message of messages) {
    if (message.role === 'system') system.push(message.content);
    else if (message.content !== '')
      history.push({ role: message.role, content: [{ type: 'text', text: message.content }] });
  }
  return { history, system };
}
