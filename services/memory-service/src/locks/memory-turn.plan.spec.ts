import { describe, expect, it } from 'vitest';
import type { MemoryTicket } from './memory-lock.repository.js';
import { planMemoryTurn, standing } from './memory-turn.plan.js';

const ticket = (jobId: string, rootJob: string, seq: number, held = false): MemoryTicket => ({
  jobId,
  rootJob,
  seq: BigInt(seq),
  held,
});

describe('planMemoryTurn', () => {
  const holder = ticket('a', 'run-a', 1, true);

  it('takes a ticket on a first ask, whatever the queue, unless the strategy rejects', () => {
    expect(planMemoryTurn([], { jobId: 'b', rootJob: 'run-b' }, 'reject')).toEqual({
      kind: 'queue',
      add: true,
    });
    expect(planMemoryTurn([holder], { jobId: 'b', rootJob: 'run-b' }, 'enqueue')).toEqual({
      kind: 'queue',
      add: true,
    });
    expect(planMemoryTurn([holder], { jobId: 'b', rootJob: 'run-b' }, 'reject')).toEqual({
      kind: 'reject',
      holder: { jobId: 'a', rootJob: 'run-a' },
    });
  });

  it('never rejects behind a step of the same run, nor a step asking again', () => {
    expect(planMemoryTurn([holder], { jobId: 'b', rootJob: 'run-a' }, 'reject')).toEqual({
      kind: 'queue',
      add: true,
    });
    const mine = ticket('b', 'run-b', 2);
    expect(planMemoryTurn([holder, mine], { jobId: 'b', rootJob: 'run-b' }, 'reject')).toEqual({
      kind: 'queue',
      add: false,
    });
  });
});

describe('standing', () => {
  it('holds when nothing is ahead; waits behind the holder and older tickets, in order', () => {
    const first = ticket('a', 'run-a', 1);
    expect(standing([first], first, 'enqueue')).toEqual({ held: true, take: true });
    const holder = ticket('a', 'run-a', 1, true);
    expect(standing([holder], holder, 'enqueue')).toEqual({ held: true, take: false });
    const second = ticket('b', 'run-b', 2);
    const third = ticket('c', 'run-c', 3);
    expect(standing([holder, second, third], third, 'enqueue')).toEqual({
      held: false,
      position: 2,
      holder: { jobId: 'a', rootJob: 'run-a' },
      interrupted: [],
    });
  });

  it('interrupt names the other runs ahead of it, not its own run nor those behind it', () => {
    const holder = ticket('a', 'run-a', 1, true);
    const sameRun = ticket('x', 'run-c', 2);
    const mine = ticket('c', 'run-c', 3);
    const later = ticket('d', 'run-d', 4);
    expect(standing([holder, sameRun, mine, later], mine, 'interrupt')).toMatchObject({
      held: false,
      position: 2,
      interrupted: [{ jobId: 'a', rootJob: 'run-a' }],
    });
  });
});
