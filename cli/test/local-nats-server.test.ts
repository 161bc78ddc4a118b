import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMesh } from '@flowmesh/messaging';
import { waitFor, withFreePorts } from '@flowmesh/testing';
import { describe, expect, it } from 'vitest';
import {
  findNatsServerBinary,
  localNatsAddress,
  startLocalNatsServer,
  superviseLocalNatsServer,
} from '../src/mesh/local-nats-server.js';

describe('starting a local nats-server for `flowmesh start`', () => {
  it('only ever does it for a single loopback NATS URL', () => {
    expect(localNatsAddress('nats://127.0.0.1:4222')).toEqual({ host: '127.0.0.1', port: 4222 });
    expect(localNatsAddress('nats://localhost')).toEqual({ host: '127.0.0.1', port: 4222 });
    expect(localNatsAddress('nats://nats.example.com:4222')).toBeUndefined();
    expect(localNatsAddress('nats://127.0.0.1:4222,nats://127.0.0.1:4223')).toBeUndefined();
    expect(localNatsAddress('nats://user:pw@127.0.0.1:4222')).toBeUndefined();
  });

  const binary = findNatsServerBinary();

  it.skipIf(!binary)(
    'starts one with JetStream on the given port, and it stops cleanly on SIGINT',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'flowmesh-nats-'));
      // Told its port: on another one if that was taken before it bound it.
      const [server, port] = await withFreePorts(1, async ([free]) => {
        const started = await startLocalNatsServer({
          binary: binary ?? '',
          host: '127.0.0.1',
          port: free,
          dataDir,
          onLine: () => {},
          readyTimeoutMs: 60_000,
        });
        return [started, free] as const;
      });
      try {
        const conn = await connectMesh({ url: `nats://127.0.0.1:${port}`, name: 'test', prefix: 't' });
        const account = await conn.jsm.getAccountInfo();
        expect(account.limits).toBeDefined();
        await conn.drain();
      } finally {
        server.signal('SIGINT');
        const exit = await server.exited;
        rmSync(dataDir, { recursive: true, force: true });
        expect(exit).toEqual({ code: 0, signal: null });
      }
    },
    90_000,
  );

  it.skipIf(!binary)(
    'restarts it on the same port and storage when it dies, saying so as for a service',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'flowmesh-nats-'));
      const notices: string[] = [];
      const [supervisor, port] = await withFreePorts(1, async ([free]) => {
        const options = {
          binary: binary ?? '',
          host: '127.0.0.1',
          port: free,
          dataDir,
          onLine: () => {},
          readyTimeoutMs: 60_000,
        };
        const first = await startLocalNatsServer(options);
        return [superviseLocalNatsServer(first, options, (notice) => notices.push(notice)), free] as const;
      });
      try {
        const url = `nats://127.0.0.1:${port}`;
        const before = await connectMesh({ url, name: 'before', prefix: 't' });
        await before.jsm.streams.add({ name: 'KEPT', subjects: ['kept.>'], storage: 'file' });
        await before.js.publish('kept.one', 'x');
        await before.drain();
        const killed = supervisor.child;
        killed.signal('SIGKILL');
        await waitFor(() => notices.some((notice) => notice.startsWith('nats-server is back')), {
          timeoutMs: 60_000,
          description: 'the supervisor to restart nats-server',
        });
        expect(notices).toEqual([
          'nats-server stopped unexpectedly (killed by SIGKILL); restarting it in 1 s (restart 1 of 5 within 10 min)',
          `nats-server is back (pid ${supervisor.child.pid})`,
        ]);
        expect(supervisor.child).not.toBe(killed);
        const after = await connectMesh({ url, name: 'after', prefix: 't' });
        expect((await after.jsm.streams.info('KEPT')).state.messages).toBe(1);
        await after.drain();
      } finally {
        supervisor.stopRestarting();
        supervisor.child.signal('SIGINT');
        await supervisor.child.exited;
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
