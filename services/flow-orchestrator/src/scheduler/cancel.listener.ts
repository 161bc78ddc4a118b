import { jobEvents } from '@flowmesh/contracts';
import { InjectMeshConnection, listenToEvent, type MeshConnection } from '@flowmesh/messaging';
import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CancelSignals } from '../engine/cancel-signals.js';

/**
 * Hears every cancel request (each process, not one of a group) and aborts the scripts of that
 * run running here. The database holds the cancel itself; this only stops work early.
 */
@Injectable()
export class CancelListener implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription: { unsubscribe(): void } | undefined;

  constructor(
    @InjectMeshConnection() private readonly conn: MeshConnection,
    private readonly signals: CancelSignals,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = listenToEvent(this.conn, jobEvents.cancelRequested, (event) =>
      this.signals.abort(event.root_job, `canceled by ${event.by}`),
    );
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
