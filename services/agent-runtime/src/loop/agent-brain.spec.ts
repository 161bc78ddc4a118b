import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ITERATIONS, readBrain } from './agent-brain.js';

const provider = { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' };
const tool = (id: string, summary: string) => ({
  id,
  summary,
  value: { tool_type: 'flowmodule', type: 'rawscript', language: 'bun', content: '', input_transforms: {} },
});
const step = (extra: Record<string, unknown> = {}) => ({ type: 'aiagent', input_transforms: {}, ...extra });

function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(MeshError);
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}

describe('readBrain', () => {
  it('reads the step inputs, with the defaults a flow author expects', () => {
    const brain = readBrain(step({ tools: [tool('t1', 'lookup')] }), {
      provider,
      user_message: 'hi',
      temperature: 0.2,
    });
    expect(brain).toMatchObject({
      provider,
      userMessage: 'hi',
      temperature: 0.2,
      maxIterations: DEFAULT_MAX_ITERATIONS,
      memory: undefined,
      previousMessages: [],
      parallel: false,
    });
    expect(brain.tools.map((t) => t.id)).toEqual(['t1']);
  });

  it('enabled_tools names tools as the model sees them (the summary): absent all, a list those, empty none', () => {
    const tools = [tool('t1', 'lookup'), tool('t2', 'refund')];
    const names = (enabled?: string[]) =>
      readBrain(step({ tools }), {
        provider,
        user_message: 'hi',
        ...(enabled ? { enabled_tools: enabled } : {}),
      }).tools.map((t) => t.summary);
    expect(names()).toEqual(['lookup', 'refund']);
    expect(names(['refund'])).toEqual(['refund']);
    expect(names([])).toEqual([]);
  });

  it('a linked agent brings its brain and tools; the step keeps only its flow-local inputs', () => {
    const agent = { provider, system_prompt: 'Be brief.', max_iterations: 3, tools: [tool('t9', 'search')] };
    const brain = readBrain(
      step({ agent: 'f/ai/helper', tools: [tool('ignored', 'ignored')] }),
      { user_message: 'hello', system_prompt: 'not mine to set', enabled_tools: ['search'] },
      agent,
    );
    expect(brain).toMatchObject({ systemPrompt: 'Be brief.', maxIterations: 3, userMessage: 'hello' });
    expect(brain.tools.map((t) => t.id)).toEqual(['t9']);
  });

  it('a step names its memory with any memory_id input but a static empty one, which reads as unset', () => {
    const names = (memoryId: unknown, value: unknown) =>
      readBrain(step({ input_transforms: { memory_id: memoryId } }), {
        provider,
        user_message: 'hi',
        memory_id: value,
      }).stepNamesMemory;
    expect(names({ type: 'javascript', expr: 'flow_input.customer' }, undefined)).toBe(true);
    expect(names({ type: 'static', value: 'c-1' }, 'c-1')).toBe(true);
    expect(names({ type: 'static', value: '' }, '')).toBe(false);
    expect(names(undefined, undefined)).toBe(false);
  });

  it('names the field and the reason for an input it cannot use', () => {
    expect(failure(() => readBrain(step(), { user_message: 'hi' }))).toBe(
      'input_transforms.provider: is required',
    );
    expect(failure(() => readBrain(step(), { provider, user_message: 'hi', temperature: 3 }))).toMatch(
      /^input_transforms\.temperature: /,
    );
    expect(
      failure(() => readBrain(step(), { provider, user_message: 'hi', user_attachments: [{ key: 'k' }] })),
    ).toMatch(/^input_transforms\.user_attachments\.0\.bucket: /);
    expect(failure(() => readBrain(step(), { provider }))).toBe(
      'input_transforms.user_message: is required (or previous_messages, with memory off)',
    );
    expect(
      failure(() =>
        readBrain(step({ agent: 'f/ai/x' }), { user_message: 'hi' }, { system_prompt: 'no provider' }),
      ),
    ).toMatch(/^agent \(f\/ai\/x\)\.provider: /);
  });
});
