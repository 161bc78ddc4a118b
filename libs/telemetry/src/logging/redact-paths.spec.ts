import { describe, expect, it } from 'vitest';
import { secretRedactPaths } from './redact-paths.js';

describe('secretRedactPaths', () => {
  it('covers each key at three depths and uses bracket syntax for dashed keys', () => {
    const paths = secretRedactPaths();
    expect(paths).toEqual(expect.arrayContaining(['password', '*.password', '*.*.password', '*.*.apiKey']));
    expect(paths).toEqual(
      expect.arrayContaining(['["x-api-key"]', '*["x-api-key"]', '*.*.headers.authorization']),
    );
  });
});
