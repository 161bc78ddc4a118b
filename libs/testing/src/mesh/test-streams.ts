import { STREAMS } from '@flowmesh/contracts';
import { connectMesh, type StreamStorageOptions } from '@flowmesh/messaging';

/**
 * Streams of a test prefix: in memory and 32 MiB each, so a run's many prefixes reserve little
 * (the contract's file streams reserve 2.25 GiB a prefix, more than a developer's disk may hold).
 * Durability across a NATS restart is not what these tests check; the cli's own server tests
 * keep file storage.
 */
export const TEST_STREAMS = {
  storage: 'memory',
  maxBytes: 32 * 1024 * 1024,
} as const satisfies StreamStorageOptions;

/** The same as settings, for services the tests start (a developer's own values win). */
export function testStreamEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return {
    FLOWMESH_STREAM_STORAGE: env.FLOWMESH_STREAM_STORAGE ?? TEST_STREAMS.storage,
    FLOWMESH_STREAM_MAX_BYTES: env.FLOWMESH_STREAM_MAX_BYTES ?? String(TEST_STREAMS.maxBytes),
  };
}

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
