import { describe, expect, it } from 'vitest';
import { preprocessedArgs, runInputOf, scriptHasPreprocessor } from './preprocessor.js';

describe('preprocessors', () => {
  it.each([
    ['bun', 'export function preprocessor(event) { return event }\nexport function main() {}', true],
    ['deno', 'export async function preprocessor(event: Event) {}', true],
    ['nativets', 'export const preprocessor = async (event) => event;', true],
    ['bun', 'export async function main() { /* preprocessor */ }', false],
    ['bun', 'function preprocessor() {}\nexport function main() {}', false],
    ['bun', 'export function preprocessorish() {}', false],
    ['python3', 'def preprocessor(event):\n    return event\n\ndef main(x): pass', true],
    ['python3', 'async def preprocessor(event):\n    pass', true],
    ['python3', 'class A:\n    def preprocessor(self): pass\ndef main(): pass', false],
    ['bash', 'preprocessor() { echo; }', false],
  ] as const)('%s %j has one: %s', (language, content, expected) => {
    expect(scriptHasPreprocessor(language, content)).toBe(expected);
  });

  it('gives a runnable with a preprocessor the event, one without the args', () => {
    const args = { a: 1 };
    const event = { kind: 'webhook', body: { a: 1 } };
    expect(runInputOf({ args, apply_preprocessor: true, trigger_event: event }, true)).toEqual({
      args: { event },
      preprocess: true,
    });
    expect(runInputOf({ args, apply_preprocessor: true, trigger_event: event }, false)).toEqual({
      args,
      preprocess: false,
    });
    expect(runInputOf({ args, trigger_event: event }, true)).toEqual({ args, preprocess: false });
    expect(runInputOf({ args, apply_preprocessor: true }, true)).toEqual({ args, preprocess: true });
  });

  it('takes an object result as it is, nothing as {}, anything else as { value }', () => {
    expect(preprocessedArgs({ a: 1 })).toEqual({ a: 1 });
    expect(preprocessedArgs(null)).toEqual({});
    expect(preprocessedArgs(3)).toEqual({ value: 3 });
    expect(preprocessedArgs([1])).toEqual({ value: [1] });
  });
});
