import { STREAMS } from '@flowmesh/contracts';
import { connectMesh } from '@flowmesh/messaging';

/** Deletes the JetStream streams of a test's subject prefix, so test runs leave nothing behind. */
export async function removeTestStreams(natsUrl: string, prefix: string): Promise<void> {
  const conn = await connectMesh({ url: natsUrl, name: 'test-cleanup', prefix });
  try {
    for (const stream of Object.values(STREAMS)) {
      await conn.jsm.streams.delete(conn.space.streamName(stream.name)).catch(() => false);
    }
  } finally {
    await conn.drain();
  }
}
