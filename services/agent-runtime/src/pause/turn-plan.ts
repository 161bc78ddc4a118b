import type { ToolCall } from '@flowmesh/contracts';
import type { PreparedTool } from '../tools/agent-tool.port.js';
import { askedQuestion, type AskedQuestion } from './question-tool.js';

/** What the agent waits for after a turn: one answer to every call that needs approval, or a question. */
export type TurnWait =
  | { readonly kind: 'approval'; readonly calls: readonly ToolCall[] }
  | {
      readonly kind: 'question';
      readonly call: ToolCall;
      readonly question: AskedQuestion;
      readonly timeoutS: number;
    };

/** A model turn's calls: those run now, those answered without running (and why), what it waits for. */
export interface TurnPlan {
  readonly now: readonly ToolCall[];
  readonly refused: ReadonlyMap<string, string>;
  readonly wait?: TurnWait;
}

/**
 * As 000 says: every call that needs no answer runs right away; the calls that require approval
 * are gathered into one request; a question is a request of its own, so a turn that also asks for
 * approval has its question refused, as is a second question.
 */
export function planTurn(
  calls: readonly ToolCall[],
  tools: ReadonlyMap<string, PreparedTool>,
  parseArguments: (call: ToolCall) => Record<string, unknown> | string,
): TurnPlan {
  const now: ToolCall[] = [];
  const gated: ToolCall[] = [];
  const questions: ToolCall[] = [];
  for (const call of calls) {
    const tool = tools.get(call.name);
    if (tool?.requiresApproval) gated.push(call);
    else if (tool?.question) questions.push(call);
    else now.push(call);
  }
  const refused = new Map<string, string>();
  if (gated.length > 0) {
    for (const call of questions)
      refused.set(
        call.id,
        'not asked: a question cannot be asked in the same turn as calls that need approval; ask it once they are answered',
      );
    return { now, refused, wait: { kind: 'approval', calls: gated } };
  }
  let wait: TurnWait | undefined;
  for (const call of questions) {
    if (wait) {
      refused.set(call.id, 'not asked: one question at a time; ask it once the first is answered');
      continue;
    }
    const args = parseArguments(call);
    const question = typeof args === 'string' ? args : askedQuestion(args);
    if (typeof question === 'string') refused.set(call.id, `not asked: ${question}`);
    else wait = { kind: 'question', call, question, timeoutS: tools.get(call.name)!.question!.timeoutS };
  }
  return { now, refused, ...(wait ? { wait } : {}) };
}
