import { defineRequest } from '../messaging/contract.js';
import { PingReplySchema, PingRequestSchema, pingContract } from './ping.contract.js';
import { SERVICE_NAMES, SERVICES, type ServiceName } from './service-names.js';

/**
 * The processes a mesh runs: one per service, plus the flow-orchestrator's worker role (same
 * code and image, started with `FLOWMESH_ROLE=worker`, scaled on its own). `npm start`, the
 * status command, the e2e launcher and the Helm chart all list processes from here.
 */
export type ProcessRole = 'service' | 'worker';

export interface MeshProcess {
  /** Shown in logs and status; also the Kubernetes Deployment name. */
  readonly name: string;
  readonly service: ServiceName;
  readonly role: ProcessRole;
  /** Port the process listens on when started locally. */
  readonly defaultHttpPort: number;
}

/** Services that have a worker role, with the local port of their worker. */
export const WORKER_ROLES: Partial<Record<ServiceName, { defaultHttpPort: number }>> = {
  'flow-orchestrator': { defaultHttpPort: 8111 },
};

export const MESH_PROCESSES: readonly MeshProcess[] = [
  ...SERVICE_NAMES.map((service) => ({
    name: service,
    service,
    role: 'service' as const,
    defaultHttpPort: SERVICES[service].defaultHttpPort,
  })),
  ...SERVICE_NAMES.flatMap((service) => {
    const worker = WORKER_ROLES[service];
    return worker
      ? [
          {
            name: `${service}-worker`,
            service,
            role: 'worker' as const,
            defaultHttpPort: worker.defaultHttpPort,
          },
        ]
      : [];
  }),
];

/** The process that runs `service` in `role`, or undefined when the service has no such role. */
export function findMeshProcess(service: ServiceName, role: ProcessRole): MeshProcess | undefined {
  return MESH_PROCESSES.find((p) => p.service === service && p.role === role);
}

/**
 * A worker answers its own ping (`<root>.worker.ping`), so status sees it as a process of its
 * own rather than as one more replica of the service's `<root>.ping`.
 */
export function workerPingContract(service: ServiceName) {
  return defineRequest(`${SERVICES[service].subjectRoot}.worker.ping`, PingRequestSchema, PingReplySchema, {
    timeoutMs: 2_000,
  });
}

export function processPingContract(process: MeshProcess) {
  return process.role === 'worker' ? workerPingContract(process.service) : pingContract(process.service);
}

/**
 * The variable that sets a process's HTTP port (`flow-orchestrator-worker` ->
 * `FLOW_ORCHESTRATOR_WORKER_HTTP_PORT`); it wins over `PORT`, so one env file can hold all.
 */
export function httpPortVariable(processName: string): string {
  return `${processName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_HTTP_PORT`;
}
