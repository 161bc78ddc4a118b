import { freePort, runFlowmesh } from '@flowmesh/testing';
import { describe, expect, it } from 'vitest';

describe('flowmesh start, before anything starts', () => {
  it('says NATS is not reachable, and how to start it, in one line', async () => {
    const natsUrl = `nats://127.0.0.1:${await freePort()}`;
    const result = await runFlowmesh(['start', '--no-start-nats'], {
      env: { NATS_URL: natsUrl, DATABASE_URL: process.env.DATABASE_URL },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `flowmesh: NATS is not reachable at ${natsUrl}; start it with ` +
        '`nats-server -js -a 127.0.0.1 -p 4222 -sd /var/lib/nats-server` or set NATS_URL\n',
    );
  });

  it('says NATS is not reachable without printing the password in NATS_URL', async () => {
    const natsUrl = `nats://resource-registry:s3cret@127.0.0.1:${await freePort()}`;
    const result = await runFlowmesh(['start', '--no-start-nats'], {
      env: { NATS_URL: natsUrl, DATABASE_URL: process.env.DATABASE_URL },
    });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).not.toContain('s3cret');
    expect(result.stderr).toContain(`NATS is not reachable at ${natsUrl.replace('s3cret', '***')};`);
  });

  it('says PostgreSQL is not reachable, and how to start it, without printing its password', async () => {
    const databaseUrl = `postgres://app:s3cret@127.0.0.1:${await freePort()}/flowmesh`;
    const result = await runFlowmesh(['start'], {
      env: { NATS_URL: process.env.NATS_URL, DATABASE_URL: databaseUrl },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `flowmesh: PostgreSQL is not reachable at ${databaseUrl.replace('s3cret', '***')}; start it with ` +
        '`pg_ctlcluster $(ls /etc/postgresql) main start` or set DATABASE_URL\n',
    );
  });

  it('refuses a port another process holds, naming it', async () => {
    const { createServer } = await import('node:net');
    const holder = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => holder.once('listening', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const result = await runFlowmesh(['start'], {
        env: {
          NATS_URL: process.env.NATS_URL,
          DATABASE_URL: process.env.DATABASE_URL,
          LLM_GATEWAY_HTTP_PORT: String(port),
        },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`port ${port} (llm-gateway) already in use`);
    } finally {
      holder.close();
    }
  });
});
