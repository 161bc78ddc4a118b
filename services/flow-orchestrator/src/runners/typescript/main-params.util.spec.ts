import { describe, expect, it } from 'vitest';
import { argumentsFor, dateParams, mainParams } from './main-params.util.js';

describe('mainParams', () => {
  it('reads names, defaults with commas inside, patterns and rest parameters', () => {
    const source = `async function main(a        , b = [1, 2], c = { x: "(,)" }, { d, e }, ...rest) { return 1 }`;
    expect(mainParams(source)).toEqual([
      { kind: 'named', name: 'a' },
      { kind: 'named', name: 'b' },
      { kind: 'named', name: 'c' },
      { kind: 'pattern' },
      { kind: 'rest', name: 'rest' },
    ]);
  });

  it('reads arrow functions, a lone arrow parameter and comments', () => {
    expect(mainParams('async (x, /* skipped, */ y) => x + y')).toEqual([
      { kind: 'named', name: 'x' },
      { kind: 'named', name: 'y' },
    ]);
    expect(mainParams('value => value * 2')).toEqual([{ kind: 'named', name: 'value' }]);
    expect(mainParams('async () => 1')).toEqual([]);
    expect(mainParams('function main(s = ")", t = `a${1}`) {}')).toEqual([
      { kind: 'named', name: 's' },
      { kind: 'named', name: 't' },
    ]);
  });

  it('maps arguments by name, the whole object to a pattern, nothing to a rest parameter', () => {
    const params = mainParams('function main(b, { a }, ...rest) {}');
    expect(argumentsFor(params, { a: 1, b: 2, c: 3 })).toEqual([2, { a: 1, b: 2, c: 3 }]);
    expect(argumentsFor(mainParams('function main(x, y) {}'), { y: 1 })).toEqual([undefined, 1]);
  });
});

describe('dateParams', () => {
  it("names the entrypoint's parameters typed Date, optional or nullable ones too", () => {
    const source = `import x from 'y';
export async function main(a: Date, b: string, c?: Date, d: Date | undefined = undefined, e: { at: Date }) {}
export function preprocessor(when: Date) {}`;
    expect(dateParams(source, 'main')).toEqual(['a', 'c', 'd']);
    expect(dateParams(source, 'preprocessor')).toEqual(['when']);
  });

  it('is empty without a Date parameter or without the entrypoint', () => {
    expect(dateParams('export function main(a: string) {}', 'main')).toEqual([]);
    expect(dateParams('export function other(a: Date) {}', 'main')).toEqual([]);
  });
});
