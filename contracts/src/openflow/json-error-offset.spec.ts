import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from './json-error-offset.js';

function v8Offset(text: string): number | undefined {
  try {
    JSON.parse(text);
    return -1;
  } catch (error) {
    const match = /at position (\d+)/.exec((error as Error).message);
    return match ? Number(match[1]) : undefined;
  }
}

describe('jsonErrorOffset', () => {
  it('is -1 for valid JSON', () => {
    for (const text of ['{}', ' [1, -2.5e3, "a\\u00e9\\n", true, false, null] ', '{"a": {"b": []}}', '"x"'])
      expect(jsonErrorOffset(text)).toBe(-1);
  });

  it('agrees with V8 wherever V8 gives a position', () => {
    const broken = [
      '{"a": 1,}',
      '{x}',
      '{"a":1',
      '{"a": 1} x',
      '{"a": "b\nc"}',
      '{"a" 1}',
      '{\n  "a": 1\n  "b": 2\n}',
      '[1 2]',
      '{"a": "\\q"}',
    ];
    for (const text of broken) {
      const expected = v8Offset(text);
      expect(expected, text).toBeDefined();
      expect(jsonErrorOffset(text), text).toBe(expected);
    }
  });

  it('finds the offending character where V8 only quotes the text', () => {
    expect(jsonErrorOffset('{"a": tru}')).toBe(9);
    expect(jsonErrorOffset('[1,,2]')).toBe(3);
    expect(jsonErrorOffset('[01]')).toBe(2);
    expect(jsonErrorOffset('')).toBe(0);
  });
});
