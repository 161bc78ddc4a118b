import type { AcquireMemoryLockReply, AcquireMemoryLockRequestSchema } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { FlowAccess } from '../access/flow-access.service.js';
import { resolveMemoryKey } from '../memory/memory-key.util.js';
import { MemoryLockRepository } from './memory-lock.repository.js';
import { planMemoryTurn, standing } from './memory-turn.plan.js';

type AcquireCommand = z.output<typeof AcquireMemoryLockRequestSchema>;

/**
 * An agent step's ask for its memory: a ticket in the memory's queue (or a refusal, `reject`),
 * held once every ticket ahead of it is gone. The caller asks again until it holds it; each ask
 * renews the ticket.
 */
@Injectable()
export class AcquireMemoryLockUseCase {
  constructor(
    private readonly access: FlowAccess,
    private readonly locks: MemoryLockRepository,
  ) {}

  async acquire(command: AcquireCommand): Promise<AcquireMemoryLockReply> {
    await this.access.assertAllowed(command.actor, command.workspace, command.flowPath, 'read');
    const { memoryId } = resolveMemoryKey(command.workspace, command.flowPath, command.memoryKey);
    const ref = { workspace: command.workspace, memoryId, stepId: command.stepId };
    const asking = { jobId: command.jobId, rootJob: command.rootJob };
    return this.locks.withQueue(ref, async (queue) => {
      const plan = planMemoryTurn(queue.tickets, asking, command.strategy);
      if (plan.kind === 'reject') return { status: 'rejected', memoryId, holder: plan.holder };
      let tickets = queue.tickets;
      if (plan.add) tickets = [...tickets, await queue.add(asking, command.leaseMs)];
      else await queue.renew(asking.jobId, command.leaseMs);
      const mine = tickets.find((ticket) => ticket.jobId === asking.jobId)!;
      const stands = standing(tickets, mine, command.strategy);
      if (stands.held) {
        if (stands.take) await queue.hold(asking.jobId);
        return { status: 'held', memoryId };
      }
      return {
        status: 'waiting',
        memoryId,
        position: stands.position,
        holder: stands.holder,
        interrupted: stands.interrupted,
      };
    });
  }
}
