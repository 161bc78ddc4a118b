import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePorts, portWasTaken, withFreePorts } from './free-port.js';

const servers: net.Server[] = [];
const listen = (port: number): Promise<net.Server> => {
  const server = net.createServer();
  servers.push(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
};

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('free ports', () => {
  it('gives different ports in one call', async () => {
    const ports = await freePorts(8);
    expect(new Set(ports).size).toBe(8);
  });

  it('starts again on other ports when one chosen was taken before the start bound it', async () => {
    const tried: number[] = [];
    const server = await withFreePorts(1, async ([port]) => {
      tried.push(port);
      // Another process takes the first port between the choice and the bind.
      if (tried.length === 1) await listen(port);
      return listen(port);
    });
    expect(tried).toHaveLength(2);
    expect((server.address() as net.AddressInfo).port).toBe(tried[1]);
  });

  it('throws any other failure at once', async () => {
    let attempts = 0;
    await expect(
      withFreePorts(1, () => {
        attempts++;
        return Promise.reject(new Error('cannot connect to NATS'));
      }),
    ).rejects.toThrow('cannot connect to NATS');
    expect(attempts).toBe(1);
  });

  it('knows a taken port from the error or from the output a start error carries', () => {
    expect(portWasTaken(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8101'))).toBe(true);
    expect(
      portWasTaken({ message: 'llm-gateway exited (code 1)', output: ['{"msg":"listen EADDRINUSE"}'] }),
    ).toBe(true);
    expect(portWasTaken(new Error('llm-gateway exited (code 78)'))).toBe(false);
  });
});
