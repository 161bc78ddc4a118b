import { jobEvents, type JobStepCompletedEvent } from '@flowmesh/contracts';
import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Injectable, Logger } from '@nestjs/common';

/**
 * `evt.job.step_completed`, published after the step's commit without waiting for JetStream's
 * acknowledgement: the step's state is already durable, the event is a notice (progress views,
 * waiting callers), and a step must not pay a round trip for it. Events of one turn of the event
 * loop (many flows' steps under load) go out together, in one socket write.
 */
@Injectable()
export class StepEventPublisher {
  private readonly log = new Logger(StepEventPublisher.name);
  private readonly subject: string;
  private queued: JobStepCompletedEvent[] = [];

  constructor(@InjectMeshConnection() private readonly conn: MeshConnection) {
    this.subject = conn.space.subject(jobEvents.stepCompleted.subject);
  }

  stepCompleted(event: JobStepCompletedEvent): void {
    if (this.queued.push(event) === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const events = this.queued;
    this.queued = [];
    for (const event of events) {
      try {
        this.conn.nc.publish(this.subject, JSON.stringify(event));
      } catch (error) {
        this.log.warn(`step event of ${event.job_id}/${event.step_id} not published: ${String(error)}`);
      }
    }
  }
}
