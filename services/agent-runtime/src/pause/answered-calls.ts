import type { AgentAnswerAction } from '@flowmesh/contracts';
import type { AgentAnswer, AgentCheckpoint } from './agent-checkpoint.js';

/** How one waiting call is settled: run it (approved), or give the model this text as its result. */
export type Settlement =
  { readonly run: true } | { readonly run: false; readonly text: string; readonly isError: boolean };

/**
 * What the answer (null: nobody answered in time) does to each call the agent waited on: approved
 * calls run, unless their tool left the roster while the agent waited (`roster`: the names of the
 * tools it has now), which are answered as no longer available; rejected and unanswered ones are
 * answered as not run, with the approver's comment; a question's answer is its result.
 */
export function settleWaitingCalls(
  checkpoint: AgentCheckpoint,
  answer: AgentAnswer | null,
  roster?: ReadonlySet<string>,
): Map<string, Settlement> {
  const { waiting } = checkpoint;
  const settled = new Map<string, Settlement>();
  const comment = answer?.comment ? `: ${answer.comment}` : '';
  const names = new Map(checkpoint.calls.map((call) => [call.id, call.name]));
  for (const id of waiting.callIds) {
    if (waiting.kind === 'approval') {
      const name = names.get(id);
      if (answer?.approved && roster && name !== undefined && !roster.has(name))
        settled.set(id, {
          run: false,
          isError: true,
          text: JSON.stringify({
            error: `not run: the tool ${name} is no longer available (it left the agent's tools while the call waited for approval)`,
          }),
        });
      else if (answer?.approved) settled.set(id, { run: true });
      else
        settled.set(id, {
          run: false,
          isError: true,
          text: JSON.stringify({
            error: answer
              ? `not run: ${answer.approver} rejected the call${comment}`
              : `not run: nobody approved the call within ${waiting.timeoutS} s`,
          }),
        });
    } else if (answer?.approved && answer.answer !== undefined) {
      settled.set(id, {
        run: false,
        isError: false,
        text: JSON.stringify({
          answer: answer.answer,
          ...(answer.comment ? { comment: answer.comment } : {}),
        }),
      });
    } else {
      settled.set(id, {
        run: false,
        isError: true,
        text: JSON.stringify({
          error: answer
            ? `${answer.approver} declined to answer${comment}`
            : `nobody answered within ${waiting.timeoutS} s`,
        }),
      });
    }
  }
  return settled;
}

/** The step's action recording the answer. */
export function answerAction(checkpoint: AgentCheckpoint, answer: AgentAnswer | null): AgentAnswerAction {
  return {
    type: 'answer',
    call_id: checkpoint.waiting.callId,
    approved: answer?.approved ?? false,
    ...(answer?.answer !== undefined ? { answer: answer.answer } : {}),
    ...(answer ? { approver: answer.approver } : { timed_out: true }),
    ...(answer?.comment ? { comment: answer.comment } : {}),
  };
}
