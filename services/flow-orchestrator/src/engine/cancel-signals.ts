import { Injectable } from '@nestjs/common';

/**
 * Aborts the scripts of a run that is cancelled while they run in this process. Keyed by root
 * job: a cancel ends the whole tree below the job cancelled, and scripts only need to stop.
 */
@Injectable()
export class CancelSignals {
  private readonly controllers = new Map<string, AbortController>();

  signalFor(rootJob: string): AbortSignal {
    let controller = this.controllers.get(rootJob);
    if (!controller) {
      controller = new AbortController();
      this.controllers.set(rootJob, controller);
    }
    return controller.signal;
  }

  abort(rootJob: string, reason: string): void {
    this.controllers.get(rootJob)?.abort(reason);
    this.controllers.delete(rootJob);
  }

  /** The run ended: nothing to abort any more. */
  forget(rootJob: string): void {
    this.controllers.delete(rootJob);
  }
}

/** Windmill's result of a cancelled job. */
export function canceledResult(by: string, reason: string | null): { error: Record<string, unknown> } {
  return {
    error: {
      name: 'Canceled',
      message: `Job canceled: ${reason ?? 'no reason given'} by ${by}`,
      reason,
      canceler: by,
    },
  };
}
