import { hostname } from 'node:os';
import type { ProcessRole, ServiceName } from '@flowmesh/contracts';

/** Who this process is: answered by ping, stamped on logs and traces. Injected by its class. */
export class ProcessIdentity {
  /** Pod name in a cluster, host name locally, plus the pid so two local replicas differ. */
  readonly instanceId = `${hostname()}-${process.pid}`;
  readonly startedAt = Date.now();

  constructor(
    readonly service: ServiceName,
    readonly processName: string,
    readonly role: ProcessRole,
    readonly version: string,
  ) {}

  uptimeMs(): number {
    return Date.now() - this.startedAt;
  }
}
