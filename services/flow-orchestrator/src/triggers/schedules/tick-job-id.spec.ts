import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { handlerJobId, tickJobId } from './tick-job-id.js';

describe('tickJobId', () => {
  it('names one tick of one schedule the same way every time, as a v5 uuid', () => {
    const tick = new Date('2026-12-07T10:00:00Z');
    const id = tickJobId('main', 'f/ops/nightly', tick);
    expect(id).toBe(tickJobId('main', 'f/ops/nightly', new Date(tick.getTime())));
    expect(z.uuid().safeParse(id).success).toBe(true);
    expect(id[14]).toBe('5');
    expect(tickJobId('main', 'f/ops/nightly', new Date('2026-12-07T10:00:01Z'))).not.toBe(id);
    expect(tickJobId('other', 'f/ops/nightly', tick)).not.toBe(id);
    expect(handlerJobId(id, 'on_failure')).not.toBe(handlerJobId(id, 'on_success'));
  });
});
