import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { RunQuerySchema } from './jobs.http.js';
import { flowOptions } from './run-options.js';

const id = '0193f0c2-7a65-7000-8000-000000000001';

describe('flowOptions', () => {
  it('a recording from ?recording_mode=&recording_id=, left out without them', () => {
    const query = RunQuerySchema.parse({ recording_mode: 'replay', recording_id: id, pin_agents: 'true' });
    expect(flowOptions(query)).toEqual({ args: {}, pin_agents: true, recording: { mode: 'replay', id } });
    expect(flowOptions(RunQuerySchema.parse({}))).toEqual({ args: {} });
  });

  it('refuses a mode without an id and the reverse, and a mode that is none', () => {
    for (const query of [{ recording_mode: 'record' }, { recording_id: id }]) {
      const error = (() => {
        try {
          flowOptions(RunQuerySchema.parse(query));
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(MeshError);
      expect((error as MeshError).message).toBe(
        'invalid run query: recording_mode and recording_id go together',
      );
    }
    expect(RunQuerySchema.safeParse({ recording_mode: 'rewind', recording_id: id }).success).toBe(false);
  });
});
