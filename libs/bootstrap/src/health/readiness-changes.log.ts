import { Injectable, Logger } from '@nestjs/common';
import type { HealthCheckResult } from '@nestjs/terminus';

/**
 * Says when readiness changes, not at every probe: a line when it turns false (naming what is
 * down and why), another when what is down changes, one when it is back. A NATS outage polled
 * by a probe every second would otherwise log an error a second.
 */
@Injectable()
export class ReadinessChangesLog {
  private readonly log = new Logger('Readiness');
  private down: string | undefined;

  ready(): void {
    if (this.down === undefined) return;
    this.down = undefined;
    this.log.log('ready again');
  }

  notReady(result: HealthCheckResult | undefined): void {
    const failing = Object.entries(result?.details ?? {}).filter(([, detail]) => detail.status !== 'up');
    const names = failing.map(([name]) => name).join(', ') || 'unknown';
    if (names === this.down) return;
    this.down = names;
    const reasons = failing.map(([name, detail]) => {
      const message = (detail as { message?: unknown }).message;
      return typeof message === 'string' ? `${name}: ${message}` : name;
    });
    this.log.warn(`not ready (${reasons.join('; ') || 'unknown'})`);
  }
}
