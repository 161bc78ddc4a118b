import { MeshError, processPingContract, type MeshProcess, type RequestTransport } from '@flowmesh/contracts';

export type Health = 'up' | 'degraded' | 'down';

export interface ProcessStatus {
  readonly name: string;
  readonly service: string;
  readonly role: string;
  /** up: answered and every dependency is up; degraded: answered, a dependency is down; down: no answer. */
  readonly health: Health;
  readonly version?: string;
  readonly instanceId?: string;
  readonly uptimeMs?: number;
  readonly checks?: Readonly<Record<string, 'up' | 'down'>>;
  readonly error?: string;
}

/** Pings every process over NATS at once; a process that does not answer in time is down. */
export async function collectStatus(
  transport: RequestTransport,
  processes: readonly MeshProcess[],
  timeoutMs: number,
): Promise<ProcessStatus[]> {
  return Promise.all(
    processes.map(async (meshProcess): Promise<ProcessStatus> => {
      const base = { name: meshProcess.name, service: meshProcess.service, role: meshProcess.role };
      try {
        const reply = await transport.request(processPingContract(meshProcess), {}, { timeoutMs });
        const healthy = Object.values(reply.checks).every((check) => check === 'up');
        return {
          ...base,
          health: healthy ? 'up' : 'degraded',
          version: reply.version,
          instanceId: reply.instanceId,
          uptimeMs: reply.uptimeMs,
          checks: reply.checks,
        };
      } catch (error) {
        return { ...base, health: 'down', error: describeFailure(error) };
      }
    }),
  );
}

function describeFailure(error: unknown): string {
  if (error instanceof MeshError) {
    return error.code === 'TIMEOUT' || error.code === 'UNAVAILABLE'
      ? 'no answer'
      : `${error.code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
