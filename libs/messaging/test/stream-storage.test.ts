import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STREAMS } from '@flowmesh/contracts';
import { connectMesh, ensureStreams, type MeshConnection } from '@flowmesh/messaging';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const NATS_SERVER = '/usr/sbin/nats-server';
const MiB = 1024 * 1024;

// A NATS server of its own whose JetStream may store 64 MiB on disk: the contract's 1 GiB
// streams do not fit, and start-up must say so plainly instead of timing out.
describe.skipIf(!isExecutable(NATS_SERVER))('streams on a JetStream with little storage', () => {
  let dir: string;
  let server: ChildProcess;
  let conn: MeshConnection;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fm-small-js-'));
    const config = join(dir, 'nats.conf');
    writeFileSync(
      config,
      `listen: 127.0.0.1:-1\nports_file_dir: "${dir}"\njetstream { store_dir: "${dir}/js", max_file_store: 64MB, max_memory_store: 64MB }\n`,
    );
    server = spawn(NATS_SERVER, ['-c', config], { stdio: 'ignore' });
    // The server writes its port to <dir>/nats-server_<pid>.ports once it listens (-1: any port).
    const url = await waitFor(
      () => {
        const file = readdirSync(dir).find((name) => name.endsWith('.ports'));
        if (!file) return undefined;
        return (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nats: string[] }).nats[0];
      },
      { timeoutMs: 30_000, intervalMs: 50, description: 'the NATS server to listen' },
    );
    conn = await connectMesh({ url, name: 'stream-storage', prefix: 'small' });
  });

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
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

function isExecutable(path: string): boolean {
  try {
    readFileSync(path, { flag: 'r' });
    return true;
  } catch {
    return false;
  }
}
