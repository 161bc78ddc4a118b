import { QUESTION_TOOL_NAME, type AgentTool, type QuestionToolValue } from '@flowmesh/contracts';
import type { PreparedTool } from '../tools/agent-tool.port.js';

/** How long a question waits for its answer unless the tool says otherwise (000: 1800 s). */
export const DEFAULT_QUESTION_TIMEOUT_S = 1_800;

/** A question as the model asked it. */
export interface AskedQuestion {
  readonly question: string;
  readonly choices?: string[];
  readonly multi_select?: boolean;
}

/**
 * The built-in question tool (`tool_type: question`), which the model sees as `ask_question`: a
 * call parks the step until the flow's user answers. It is never run as a tool: the loop parks.
 */
export function prepareQuestionTool(tool: AgentTool): PreparedTool {
  const value = tool.value as QuestionToolValue;
  return {
    tool,
    definition: {
      name: QUESTION_TOOL_NAME,
      description:
        tool.description ??
        'Ask the user a question and wait for the answer. Use it only for information or a decision that only the user can give; offer choices when the answer is one of a few.',
      parameters: {
        type: 'object',
        properties: {
          question: { type: 'string', description: 'The question, in full.' },
          choices: { type: 'array', items: { type: 'string' }, description: 'Answers to pick from, if any.' },
          multi_select: { type: 'boolean', description: 'Whether several choices may be picked.' },
        },
        required: ['question'],
        additionalProperties: false,
      },
    },
    question: { timeoutS: value.timeout_s ?? value.timeout ?? DEFAULT_QUESTION_TIMEOUT_S },
    run: () =>
      Promise.resolve({
        ok: false,
        content: JSON.stringify({ error: 'ask_question is answered by the user' }),
      }),
  };
}

/** The model's question, or why it cannot be asked. */
export function askedQuestion(args: Record<string, unknown>): AskedQuestion | string {
  const { question, choices, multi_select: multiSelect } = args;
  if (typeof question !== 'string' || question.trim() === '') return 'question must be a non-empty string';
  if (choices !== undefined && (!Array.isArray(choices) || !choices.every((c) => typeof c === 'string')))
    return 'choices must be a list of strings';
  if (multiSelect !== undefined && typeof multiSelect !== 'boolean') return 'multi_select must be a boolean';
  return {
    question,
    ...(choices ? { choices } : {}),
    ...(multiSelect !== undefined ? { multi_select: multiSelect } : {}),
  };
}
