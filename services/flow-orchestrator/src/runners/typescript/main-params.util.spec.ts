import { describe, expect, it } from 'vitest';
import { argumentsFor, mainParams } from './main-params.util.js';

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
