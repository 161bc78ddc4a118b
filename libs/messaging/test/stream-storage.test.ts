import { STREAMS } from '@flowmesh/contracts';
import { connectMesh, ensureStreams, type MeshConnection } from '@flowmesh/messaging';
import { natsServerInstalled, startOwnNatsServer, type OwnNatsServer } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MiB = 1024 * 1024;

// A NATS server of its own whose JetStream may store 64 MiB on disk: the contract's 1 GiB
// streams do not fit, and start-up must say so plainly instead of timing out.
describe.skipIf(!natsServerInstalled())('streams on a JetStream with little storage', () => {
  let server: OwnNatsServer;
  let conn: MeshConnection;

  beforeAll(async () => {
    server = await startOwnNatsServer({ jetstream: 'max_file_store: 64MB, max_memory_store: 64MB' });
    conn = await connectMesh({ url: server.url, name: 'stream-storage', prefix: 'small' });
  });

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    server?.stop();
  });

  it('names the stream, the storage left and the setting to change when a stream does not fit', async () => {
    await expect(ensureStreams(conn)).rejects.toThrow(
      /JetStream cannot reserve 1024 MiB of file storage for stream SMALL_WORK .*Free disk .*FLOWMESH_STREAM_MAX_BYTES/,
    );
  });

  it('fits once each stream is capped, in memory or on disk', async () => {
    const memory = await ensureStreams(conn, { storage: 'memory', maxBytes: 8 * MiB });
    expect(memory.map((result) => result.action)).toEqual(Object.values(STREAMS).map(() => 'created'));
    const work = await conn.jsm.streams.info(conn.space.streamName(STREAMS.work.name));
    expect(work.config).toMatchObject({ storage: 'memory', max_bytes: 8 * MiB, max_msg_size: MiB });
  });
});
