import { describe, expect, it } from 'vitest';
import { bashArguments, bashParams } from './bash-params.util.js';

describe('bashParams', () => {
  it('names positional parameters from their declarations, in position order', () => {
    const content = [
      '#!/bin/bash',
      'second="$2"',
      "first='$1'",
      'third="${3:-fallback}"',
      'echo "$first"',
      'fourth=$4 # trailing',
    ].join('\n');
    expect(bashParams(content)).toEqual(['first', 'second', 'third', 'fourth']);
  });

  it('leaves undeclared positions empty and renders non-strings as JSON', () => {
    const params = bashParams('a="$1"\nc="$3"');
    expect(bashArguments(params, { a: 'x', c: { k: [1] } })).toEqual(['x', '', '{"k":[1]}']);
    expect(bashArguments(['n', 'b', 'z'], { n: 3, b: false, z: null })).toEqual(['3', 'false', '']);
  });
});
