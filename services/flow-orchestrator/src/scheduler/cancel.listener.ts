import { jobEvents, JobCancelRequestedEventSchema } from '@flowmesh/contracts';
import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CancelSignals } from '../engine/cancel-signals.js';

/**
 * Hears every cancel request (a core subscription: each process, not one of a group) and aborts
 * the scripts of that run running here. The database holds the cancel itself; this only stops
 * work early.
 */
@Injectable()
export class CancelListener implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription: ReturnType<MeshConnection['nc']['subscribe']> | undefined;

  constructor(
    @InjectMeshConnection() private readonly conn: MeshConnection,
    private readonly signals: CancelSignals,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = this.conn.nc.subscribe(this.conn.space.subject(jobEvents.cancelRequested.subject), {
      callback: (error, message) => {
        if (error) return;
        const parsed = JobCancelRequestedEventSchema.safeParse(safeJson(message.data));
        if (parsed.success) this.signals.abort(parsed.data.root_job, `canceled by ${parsed.data.by}`);
      },
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
}
