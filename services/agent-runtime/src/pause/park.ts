import type { AgentAction, ToolResultMessage } from '@flowmesh/contracts';
import type { AgentLoopPorts } from '../loop/agent-loop.js';
import { parseArguments } from '../loop/tool-calls.js';
import type { AgentCheckpoint } from './agent-checkpoint.js';
import type { TurnWait } from './turn-plan.js';

/** The checkpoint of a run parked after a turn: its state, the turn's results so far, what it waits for. */
export function parkedAt(
  wait: TurnWait,
  state: Omit<AgentCheckpoint, 'waiting' | 'results'> & { results: ReadonlyMap<string, ToolResultMessage> },
  ports: AgentLoopPorts,
): AgentCheckpoint {
  const calls = wait.kind === 'approval' ? wait.calls : [wait.call];
  const timeoutS = wait.kind === 'approval' ? ports.approvalTimeoutS : wait.timeoutS;
  return {
    record: state.record,
    context: state.context,
    usage: state.usage,
    iteration: state.iteration,
    calls: state.calls,
    results: Object.fromEntries(state.results),
    waiting: {
      kind: wait.kind,
      callId: calls[0].id,
      callIds: calls.map((call) => call.id),
      timeoutS,
      until: new Date(Date.now() + timeoutS * 1000).toISOString(),
    },
  };
}

/** The step's action for what it waits on: the calls to approve, or the question. */
export function requestAction(wait: TurnWait, checkpoint: AgentCheckpoint): AgentAction {
  const { callId, timeoutS } = checkpoint.waiting;
  if (wait.kind === 'question')
    return { type: 'question', call_id: callId, ...wait.question, timeout_s: timeoutS };
  return {
    type: 'approval_request',
    call_id: callId,
    calls: wait.calls.map((call) => {
      const args = parseArguments(call);
      return {
        call_id: call.id,
        function_name: call.name,
        arguments: typeof args === 'string' ? call.arguments : args,
      };
    }),
    timeout_s: timeoutS,
  };
}
