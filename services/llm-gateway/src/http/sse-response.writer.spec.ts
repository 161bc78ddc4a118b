import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SseResponseWriter } from './sse-response.writer.js';

describe('SseResponseWriter', () => {
  let server: Server | undefined;

  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /** A stream whose writes the test drives; returns everything the client received. */
  async function stream(script: (writer: SseResponseWriter) => Promise<void>): Promise<string> {
    server = createServer((_req, res) => {
      const writer = new SseResponseWriter(res, 40);
      void script(writer).then(() => writer.end());
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    return response.text();
  }

  const quiet = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('sends keepalive comments while silent, and none while data flows', async () => {
    const body = await stream(async (writer) => {
      await quiet(150);
      await writer.write('data: {"a":1}\n\n');
      for (let i = 0; i < 5; i++) {
        await quiet(10);
        await writer.write(`data: ${i}\n\n`);
      }
    });
    const [silent, busy] = body.split('data: {"a":1}\n\n') as [string, string];
    expect(silent.match(/: keepalive\n\n/g)?.length).toBeGreaterThanOrEqual(2);
    expect(busy).not.toContain('keepalive');
  });

  it('never puts a keepalive inside an event left half-written', async () => {
    const body = await stream(async (writer) => {
      await writer.write('data: {"par');
      await quiet(150);
      await writer.write('t":2}\n\n');
    });
    expect(body).toBe('data: {"part":2}\n\n');
  });
});
