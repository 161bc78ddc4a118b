import { jobEvents, type JobCancelRequestedEvent } from '@flowmesh/contracts';
import { FollowEvent } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { CancelSignals } from '../engine/cancel-signals.js';

/**
 * Hears every cancel request (each process, not one of a group) and aborts the scripts of that
 * run running here. The database holds the cancel itself; this only stops work early.
 */
@Injectable()
export class CancelListener {
  constructor(private readonly signals: CancelSignals) {}

  @FollowEvent(jobEvents.cancelRequested)
  onCancelRequested(event: JobCancelRequestedEvent): void {
    this.signals.abort(event.root_job, `canceled by ${event.by}`);
  }
}
