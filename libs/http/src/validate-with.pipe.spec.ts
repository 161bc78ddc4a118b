import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { itemPath } from './item-path.param.js';
import { validateWith } from './validate-with.pipe.js';

const metadata = { type: 'param' } as const;

describe('validateWith', () => {
  it('answers the parsed value, or VALIDATION_FAILED naming what was parsed', () => {
    const pipe = validateWith(z.object({ n: z.coerce.number() }), 'query');
    expect(pipe.transform({ n: '2' }, { type: 'query' })).toEqual({ n: 2 });
    expect(() => pipe.transform({ n: 'x' }, { type: 'query' })).toThrow(/^invalid query: n:/);
    expect(() => pipe.transform({ n: 'x' }, { type: 'query' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });
});

describe('itemPath', () => {
  it('joins a wildcard’s segments back into an item path and checks it', () => {
    expect(itemPath.transform(['u', 'alice', 'x'], metadata)).toBe('u/alice/x');
    expect(itemPath.transform('f/team/x', metadata)).toBe('f/team/x');
    expect(() => itemPath.transform(['nowhere'], metadata)).toThrow(MeshError);
  });
});
