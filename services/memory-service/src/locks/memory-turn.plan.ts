import type { MemoryLockHolder, MultitaskStrategy } from '@flowmesh/contracts';
import type { MemoryTicket } from './memory-lock.repository.js';

/** What an ask for a memory does to its queue, and what it answers. */
export type MemoryTurnPlan =
  | { readonly kind: 'reject'; readonly holder: MemoryLockHolder }
  /** Take a ticket at the back of the queue (a first ask), or keep the one the step has. */
  | { readonly kind: 'queue'; readonly add: boolean };

/**
 * A step's first ask takes a ticket, unless its strategy is `reject` and another run holds or
 * waits for the memory. Tickets of the same run never count against it: one run's steps queue.
 * An ask again (a retry, a step taken up after a crash or a park) keeps its ticket, whatever its
 * strategy: it was let in once.
 */
export function planMemoryTurn(
  tickets: readonly MemoryTicket[],
  asking: MemoryLockHolder,
  strategy: MultitaskStrategy,
): MemoryTurnPlan {
  if (tickets.some((ticket) => ticket.jobId === asking.jobId)) return { kind: 'queue', add: false };
  const others = tickets.filter((ticket) => ticket.rootJob !== asking.rootJob);
  const first = others.find((ticket) => ticket.held) ?? others[0];
  if (strategy === 'reject' && first) return { kind: 'reject', holder: holderOf(first) };
  return { kind: 'queue', add: true };
}

/** Where a ticket stands once it is in the queue (`tickets` oldest first, the step's included). */
export function standing(
  tickets: readonly MemoryTicket[],
  mine: MemoryTicket,
  strategy: MultitaskStrategy,
):
  | { readonly held: true; readonly take: boolean }
  | {
      readonly held: false;
      readonly position: number;
      readonly holder: MemoryLockHolder | null;
      readonly interrupted: MemoryLockHolder[];
    } {
  const holder = tickets.find((ticket) => ticket.held);
  if (holder?.jobId === mine.jobId) return { held: true, take: false };
  const ahead = tickets.filter(
    (ticket) => ticket.jobId !== mine.jobId && (ticket.held || ticket.seq < mine.seq),
  );
  if (ahead.length === 0) return { held: true, take: true };
  return {
    held: false,
    position: ahead.length,
    holder: holder ? holderOf(holder) : null,
    interrupted:
      strategy === 'interrupt' ? ahead.filter((ticket) => ticket.rootJob !== mine.rootJob).map(holderOf) : [],
  };
}

function holderOf(ticket: MemoryTicket): MemoryLockHolder {
  return { jobId: ticket.jobId, rootJob: ticket.rootJob };
}
