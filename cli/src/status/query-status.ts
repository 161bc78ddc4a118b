import { MESH_PROCESSES, type MeshProcess } from '@flowmesh/contracts';
import { connectMesh, MeshClient } from '@flowmesh/messaging';
import { collectStatus, type ProcessStatus } from './collect-status.js';

export interface StatusQuery {
  readonly natsUrl: string;
  readonly subjectPrefix: string;
  readonly timeoutMs: number;
  readonly processes?: readonly MeshProcess[];
}

/** Connects to the mesh's NATS, pings every process once, and disconnects. */
export async function queryMeshStatus(query: StatusQuery): Promise<ProcessStatus[]> {
  const conn = await connectMesh({ url: query.natsUrl, name: 'flowmesh-cli', prefix: query.subjectPrefix });
  try {
    return await collectStatus(new MeshClient(conn), query.processes ?? MESH_PROCESSES, query.timeoutMs);
  } finally {
    await conn.drain();
  }
}
