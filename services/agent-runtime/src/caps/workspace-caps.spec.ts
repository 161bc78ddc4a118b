import type { AgentTool, ChatMessage, ToolCall } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import type { AgentBrain } from '../loop/agent-brain.js';
import { callsOverCap, cappedBrain } from './workspace-caps.js';

const CAPS = { max_agent_iterations: 4, max_agent_tool_calls: 3, max_agent_depth: 2 };
const script = { id: 's', value: { tool_type: 'flowmodule', type: 'rawscript' } } as unknown as AgentTool;
const agent = {
  id: 'a',
  summary: 'helper',
  value: { tool_type: 'flowmodule', type: 'aiagent' },
} as unknown as AgentTool;
const brain = { maxIterations: 10, tools: [script, agent] } as unknown as AgentBrain;
const call = (id: string): ToolCall => ({ id, name: 'add', arguments: '{}' });

describe('cappedBrain', () => {
  it('lowers max_iterations to the cap and says so; keeps what is under it silently', () => {
    const said: string[] = [];
    expect(cappedBrain(brain, CAPS, 0, (line) => said.push(line))).toMatchObject({
      maxIterations: 4,
      maxToolCalls: 3,
    });
    expect(said).toEqual(['max_iterations 10 capped to 4 by the workspace (max_agent_iterations)']);
    said.length = 0;
    expect(
      cappedBrain({ ...brain, maxIterations: 2 }, CAPS, 1, (line) => said.push(line)).maxIterations,
    ).toBe(2);
    expect(said).toEqual([]);
  });

  it('leaves agent tools out at the depth cap', () => {
    const said: string[] = [];
    expect(cappedBrain(brain, CAPS, 2, (line) => said.push(line)).tools).toEqual([script]);
    expect(said[1]).toBe(
      'agent tool(s) helper left out: this agent is nested 2 deep, and the workspace allows 2 (max_agent_depth)',
    );
  });

  it('changes nothing without caps', () => {
    expect(cappedBrain(brain, undefined, 5, () => undefined)).toBe(brain);
  });
});

describe('callsOverCap', () => {
  const turn = (...ids: string[]): ChatMessage => ({
    role: 'assistant',
    content: [],
    toolCalls: ids.map(call),
  });

  it('counts the calls of earlier turns and refuses those of this turn past the cap', () => {
    const record = [turn('a', 'b'), turn('c', 'd', 'e')];
    expect([...callsOverCap(record, [call('c'), call('d'), call('e')], 3).over]).toEqual(['d', 'e']);
    expect(callsOverCap(record, [call('c'), call('d'), call('e')], undefined).over.size).toBe(0);
  });
});
