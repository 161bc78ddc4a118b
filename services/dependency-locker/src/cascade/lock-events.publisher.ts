import type { EventContract } from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable, Logger } from '@nestjs/common';
import type { z } from 'zod';

/**
 * Publishes the locker's facts (`evt.lock.*`). The lock itself is already kept (in the item and
 * in `lock_record`) when a fact goes out, so one that cannot be published is logged, not retried.
 */
@Injectable()
export class LockEventsPublisher {
  private readonly log = new Logger('LockEvents');

  constructor(private readonly mesh: MeshClient) {}

  async publish<P extends z.ZodType>(contract: EventContract<P>, payload: z.input<P>): Promise<void> {
    try {
      await this.mesh.publishEvent(contract, payload);
    } catch (error) {
      this.log.warn(`${contract.subject} was not published: ${(error as Error).message}`);
    }
  }
}
