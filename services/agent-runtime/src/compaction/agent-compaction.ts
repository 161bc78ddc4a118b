import type { AgentBrain } from '../loop/agent-brain.js';
import type { AgentLoopPorts } from '../loop/agent-loop.js';
import { addUsage, type TotalUsage } from '../loop/usage.js';
import { contextBudget } from './context-budget.js';
import { ContextCompactor } from './context-compactor.js';
import { contextWindowOf } from './model-context-windows.js';

/**
 * A summary's output cap when the step sets none: the reserve is often above what a model may
 * answer in one call (gpt-4o: 16 384, Claude 3.5 Haiku: 8 192), and a cap it refuses would fail
 * every summary. With `max_completion_tokens` set, the author vouched for that much.
 */
const DEFAULT_SUMMARY_CAP = 8_192;

/**
 * The run's compactor when its memory is `compaction` (with or without a memory id: a stateless
 * run's own loop is bounded too), else none. Summaries go to the step's model through the
 * gateway, without the step's temperature and reasoning settings; their tokens count in the
 * step's usage.
 */
export function compactorFor(
  brain: AgentBrain,
  ports: Pick<AgentLoopPorts, 'chat' | 'log'>,
  usage: TotalUsage,
  signal: AbortSignal,
): ContextCompactor | undefined {
  const memory = brain.memory;
  if (memory?.kind !== 'compaction') return undefined;
  const window = contextWindowOf(brain.provider.model, memory.context_window);
  const budget = contextBudget(window, brain.maxCompletionTokens);
  const summaryTokens = Math.min(budget.reserve, brain.maxCompletionTokens ?? DEFAULT_SUMMARY_CAP);
  return new ContextCompactor(
    budget,
    async ({ system, transcript, attachments, maxOutputTokens }) => {
      const final = await ports.chat(
        {
          provider: {
            kind: brain.provider.kind,
            resource: brain.provider.resource,
            model: brain.provider.model,
          },
          system,
          // The media stay available: the gateway reads them from object storage as for any prompt.
          messages: [{ role: 'user', content: [{ type: 'text', text: transcript }, ...attachments] }],
          maxOutputTokens,
        },
        signal,
      );
      if (final.type === 'error') {
        ports.log(`the summary request failed: ${final.error.message}`);
        return undefined;
      }
      addUsage(usage, final.usage);
      return final.message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    },
    ports.log,
    summaryTokens,
  );
}
