import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { formatWatchOffset, parseWatchOffset } from './job-watch-offset.js';

describe('watch offsets', () => {
  it('round-trips: the stream offset, each step told, the end', () => {
    for (const text of ['0.', '12.2210', '7.22.end', '0.1'])
      expect(formatWatchOffset(parseWatchOffset(text))).toBe(text);
    expect(parseWatchOffset('12.2210')).toEqual({ agent: 12, steps: [2, 2, 1, 0], ended: false });
  });

  it('reads empty as the start', () => {
    expect(parseWatchOffset('')).toEqual({ agent: 0, steps: [], ended: false });
  });

  it.each(['soon', '12', '1.3', '-1.2', '1.2.done', 'x.22'])('refuses %j naming the field', (text) => {
    expect(() => parseWatchOffset(text)).toThrow(MeshError);
    expect(() => parseWatchOffset(text)).toThrow(/^after: /);
  });
});
