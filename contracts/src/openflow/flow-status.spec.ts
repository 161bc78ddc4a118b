import { describe, expect, it } from 'vitest';
import { corpusData, corpusFiles } from '../../test/openflow/corpus.js';
import { FlowStatusSchema } from './flow-status.schema.js';
import { humanIssueMessage } from './issue-message.js';
import { formatJsonPath } from '../errors.js';

function problems(data: unknown): string[] {
  const result = FlowStatusSchema.safeParse(data, { error: humanIssueMessage });
  return result.success ? [] : result.error.issues.map((i) => `${formatJsonPath(i.path)}: ${i.message}`);
}

describe('FlowStatusSchema', () => {
  it.each(corpusFiles('status').map((file) => [file.name, file] as const))(
    '%s parses as written',
    (_name, file) => {
      const data = corpusData(file);
      expect(problems(data)).toEqual([]);
      expect(FlowStatusSchema.parse(data)).toStrictEqual(data);
    },
  );

  it('names what is wrong in a status, agent actions included', () => {
    expect(
      problems({
        step: 0,
        modules: [
          {
            type: 'Running',
            job: 'not-a-uuid',
            agent_actions: [
              { type: 'message' },
              { type: 'thinking' },
              { type: 'tool_call', function_name: 'f' },
            ],
          },
        ],
      }),
    ).toEqual([
      'modules[0].type: invalid value "Running"; expected one of WaitingForPriorSteps, WaitingForEvents, WaitingForExecutor, InProgress, Success, Failure',
      'modules[0].job: expected a UUID, got "not-a-uuid"',
      'modules[0].agent_actions[0].content: required',
      'modules[0].agent_actions[1].type: unknown agent action type "thinking"; expected one of tool_call, mcp_tool_call, web_search, message, approval_request, question, answer',
      'modules[0].agent_actions[2].job_id: required',
      'modules[0].agent_actions[2].module_id: required',
      'failure_module: required',
    ]);
  });
});
