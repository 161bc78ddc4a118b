import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ENGINE_CONFIG, type EngineConfig } from '../engine/engine.config.js';
import { LeaseStore } from '../store/lease.store.js';

/**
 * Keeps this process's flow jobs leased: renews every lease it holds three times per lease
 * period, so only a dead (or frozen) process loses its flows to another.
 */
@Injectable()
export class LeaseKeeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger(LeaseKeeper.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly leases: LeaseStore,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(
      () => {
        this.leases
          .renew(this.config.instanceId, this.config.leaseTtlMs)
          .catch((error: unknown) => this.log.warn(`lease renewal failed: ${String(error)}`));
      },
      Math.max(100, Math.floor(this.config.leaseTtlMs / 3)),
    );
  }

  /** Stopping: whatever this process still drives goes back to the others, each with a work message. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.leases
      .releaseAll(this.config.instanceId)
      .catch((error: unknown) => this.log.warn(`releasing leases at shutdown failed: ${String(error)}`));
  }
}
