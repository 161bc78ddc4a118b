import type { ToolCall } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import type { PreparedTool } from '../tools/agent-tool.port.js';
import type { AgentCheckpoint } from './agent-checkpoint.js';
import { settleWaitingCalls } from './answered-calls.js';
import { planTurn } from './turn-plan.js';

const tool = (name: string, extra: Partial<PreparedTool> = {}) =>
  [name, { definition: { name }, ...extra } as PreparedTool] as const;
const tools = new Map([
  tool('add'),
  tool('refund', { requiresApproval: true }),
  tool('ask_question', { question: { timeoutS: 60 } }),
]);
const call = (id: string, name: string, args: unknown = {}): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});
const parse = (c: ToolCall) => JSON.parse(c.arguments) as Record<string, unknown>;

describe('planTurn', () => {
  it('runs what needs no answer; gathers the calls that need approval; refuses a question beside them', () => {
    const plan = planTurn(
      [
        call('1', 'refund'),
        call('2', 'add'),
        call('3', 'ask_question', { question: 'Sure?' }),
        call('4', 'refund'),
      ],
      tools,
      parse,
    );
    expect(plan.now.map((c) => c.id)).toEqual(['2']);
    expect(plan.wait).toMatchObject({ kind: 'approval', calls: [{ id: '1' }, { id: '4' }] });
    expect(plan.refused.get('3')).toMatch(/^not asked: a question cannot be asked in the same turn/);
  });

  it('asks one question at a time, and refuses one without a question', () => {
    const plan = planTurn(
      [
        call('1', 'ask_question', { choices: ['a'] }),
        call('2', 'ask_question', { question: 'Which?', choices: ['a', 'b'] }),
        call('3', 'ask_question', { question: 'And?' }),
      ],
      tools,
      parse,
    );
    expect(plan.refused.get('1')).toBe('not asked: question must be a non-empty string');
    expect(plan.wait).toEqual({
      kind: 'question',
      call: expect.objectContaining({ id: '2' }) as unknown,
      question: { question: 'Which?', choices: ['a', 'b'] },
      timeoutS: 60,
    });
    expect(plan.refused.get('3')).toBe(
      'not asked: one question at a time; ask it once the first is answered',
    );
  });
});

describe('settleWaitingCalls', () => {
  const parked = (kind: 'approval' | 'question'): AgentCheckpoint => ({
    record: [],
    context: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    iteration: 1,
    calls: [],
    results: {},
    waiting: { kind, callId: 'c1', callIds: ['c1', 'c2'], timeoutS: 30, until: new Date().toISOString() },
  });

  it('runs approved calls; answers rejected and unanswered ones as not run', () => {
    expect(settleWaitingCalls(parked('approval'), { approved: true, approver: 'ada' }).get('c2')).toEqual({
      run: true,
    });
    expect(
      settleWaitingCalls(parked('approval'), { approved: false, approver: 'ada', comment: 'no' }).get('c1'),
    ).toEqual({ run: false, isError: true, text: '{"error":"not run: ada rejected the call: no"}' });
    expect(settleWaitingCalls(parked('approval'), null).get('c1')).toEqual({
      run: false,
      isError: true,
      text: '{"error":"not run: nobody approved the call within 30 s"}',
    });
  });

  it('answers an approved call whose tool left the roster while it waited as no longer available', () => {
    const checkpoint = {
      ...parked('approval'),
      calls: [
        { id: 'c1', name: 'refund', arguments: '{}' },
        { id: 'c2', name: 'add', arguments: '{}' },
      ],
    };
    const settled = settleWaitingCalls(checkpoint, { approved: true, approver: 'ada' }, new Set(['add']));
    expect(settled.get('c1')).toEqual({
      run: false,
      isError: true,
      text: JSON.stringify({
        error:
          "not run: the tool refund is no longer available (it left the agent's tools while the call waited for approval)",
      }),
    });
    expect(settled.get('c2')).toEqual({ run: true });
  });

  it("gives a question's answer as its result", () => {
    expect(
      settleWaitingCalls(parked('question'), { approved: true, approver: 'ada', answer: ['a', 'b'] }).get(
        'c1',
      ),
    ).toEqual({ run: false, isError: false, text: '{"answer":["a","b"]}' });
    expect(
      settleWaitingCalls(parked('question'), { approved: false, approver: 'ada' }).get('c1'),
    ).toMatchObject({
      isError: true,
      text: '{"error":"ada declined to answer"}',
    });
  });
});
