import { EventEmitter } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SseResponseWriter } from './sse-response.writer.js';

/** A response that keeps what is written: the keepalive timing runs on fake timers, not on a loaded machine's. */
class CapturedResponse extends EventEmitter {
  body = '';
  destroyed = false;
  headersSent = false;

  writeHead(): this {
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {}

  write(chunk: string | Uint8Array): boolean {
    this.body += String(chunk);
    return true;
  }

  end(chunk?: string): void {
    if (chunk) this.body += chunk;
    this.emit('close');
  }
}

describe('SseResponseWriter', () => {
  let server: Server | undefined;

  afterEach(async () => {
    vi.useRealTimers();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /** A writer with a 40 ms keepalive on a captured response, its time advanced by the test. */
  function captured(): { res: CapturedResponse; writer: SseResponseWriter } {
    vi.useFakeTimers();
    const res = new CapturedResponse();
    return { res, writer: new SseResponseWriter(res as unknown as ServerResponse, 40) };
  }

  it('opens an event stream over HTTP: its headers at once, then the frames as written', async () => {
    server = createServer((_req, res) => {
      const writer = new SseResponseWriter(res, 40);
      void Promise.resolve(writer.write('data: {"a":1}\n\n')).then(() => writer.end());
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await response.text()).toBe('data: {"a":1}\n\n');
  });

  it('sends keepalive comments while silent, and none while data flows', () => {
    const { res, writer } = captured();
    vi.advanceTimersByTime(150);
    void writer.write('data: {"a":1}\n\n');
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(10);
      void writer.write(`data: ${i}\n\n`);
    }
    writer.end();
    const [silent, busy] = res.body.split('data: {"a":1}\n\n') as [string, string];
    expect(silent).toBe(': keepalive\n\n'.repeat(3));
    expect(busy).not.toContain('keepalive');
  });

  it('never puts a keepalive inside an event left half-written', () => {
    const { res, writer } = captured();
    void writer.write('data: {"par');
    vi.advanceTimersByTime(150);
    void writer.write('t":2}\n\n');
    writer.end();
    expect(res.body).toBe('data: {"part":2}\n\n');
  });
});
