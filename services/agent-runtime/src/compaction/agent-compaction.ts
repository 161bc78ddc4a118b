import type { AgentBrain } from '../loop/agent-brain.js';
import type { AgentLoopPorts } from '../loop/agent-loop.js';
import { addUsage, type TotalUsage } from '../loop/usage.js';
import { contextBudget } from './context-budget.js';
import { ContextCompactor } from './context-compactor.js';
import { contextWindowOf, outputLimitOf } from './model-context-windows.js';

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
  // The reserved budget (seed 000), within what the model answers in one call.
  const summaryTokens = Math.min(budget.reserve, outputLimitOf(brain.provider.model) ?? budget.reserve);
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
