import { describe, expect, it } from 'vitest';
import { mismatchOf } from './recordings.service.js';
import { describeDifference, requestDifferences } from './request-diff.js';

const text = (value: string) => ({ role: 'user', content: [{ type: 'text', text: value }] });

describe('request differences', () => {
  it('names each differing field by its path, expected against got', () => {
    const expected = { system: 'a', messages: [text('hi'), text('one')], temperature: 0 };
    const got = { system: 'a', messages: [text('hi'), text('two')], temperature: 0.5 };
    expect(requestDifferences(expected, got)).toEqual([
      { path: 'messages[1].content[0].text', expected: 'one', got: 'two' },
      { path: 'temperature', expected: 0, got: 0.5 },
    ]);
  });

  it('a field or message only one side has is absent on the other', () => {
    const differences = requestDifferences(
      { messages: [text('hi')] },
      { messages: [text('hi'), text('more')], tools: [] },
    );
    expect(differences).toEqual([
      { path: 'messages[1]', got: text('more') },
      { path: 'tools', got: [] },
    ]);
    expect(describeDifference(differences[0])).toBe(
      'messages[1]: expected (absent), got {"role":"user","content":[{"type":"text","text":"more"}]}',
    );
  });

  it('cuts long values and lists at most 20 differences', () => {
    const long = 'x'.repeat(1000);
    const [difference] = requestDifferences({ system: long }, { system: 'y' });
    expect(difference.expected).toBe(`${'x'.repeat(300)}… (1000 characters)`);
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`f${index}`, index]));
    expect(requestDifferences(many, {})).toHaveLength(20);
  });

  it('a mismatch is judged against the closest unused recorded request', () => {
    const request = { provider: { kind: 'openai', model: 'm' }, messages: [text('Add 2 and 4')] };
    const mismatch = mismatchOf('chat', request, [
      { seq: 0, request: { provider: { kind: 'openai', model: 'other' }, messages: [text('Summarize')] } },
      { seq: 1, request: { provider: { kind: 'openai', model: 'm' }, messages: [text('Add 2 and 3')] } },
    ]);
    expect(mismatch).toEqual({
      operation: 'chat',
      expectedCall: 1,
      differences: [{ path: 'messages[0].content[0].text', expected: 'Add 2 and 3', got: 'Add 2 and 4' }],
      message:
        'replay: the chat request differs from recorded call 1: messages[0].content[0].text: expected "Add 2 and 3", got "Add 2 and 4"',
    });
    expect(mismatchOf('chat', request, []).message).toMatch(
      /no answer for .*asked more than when it was recorded/,
    );
  });
});
