import { Writable } from 'node:stream';
import { createLogger } from '@flowmesh/telemetry';
import { afterEach, describe, expect, it } from 'vitest';
import { exitOnSignals } from './exit-on-signals.js';

function capturingLogger() {
  const lines: Array<{ msg: string; level: string }> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as { msg: string; level: string });
      done();
    },
  });
  return { logger: createLogger({ service: 'test', destination }), lines };
}

describe('exitOnSignals', () => {
  let dispose: (() => void) | undefined;
  afterEach(() => dispose?.());

  it('stops once on SIGTERM and exits 0', async () => {
    const { logger, lines } = capturingLogger();
    let stops = 0;
    const exited = new Promise<number>((resolve) => {
      dispose = exitOnSignals({
        logger,
        timeoutMs: 5_000,
        stop: () => Promise.resolve(void stops++),
        exit: resolve,
      });
    });
    process.emit('SIGTERM', 'SIGTERM');
    process.emit('SIGINT', 'SIGINT');
    expect(await exited).toBe(0);
    expect(stops).toBe(1);
    expect(lines.map((line) => line.msg)).toEqual([
      'SIGTERM received; stopping',
      'SIGINT received while stopping; still stopping',
      'stopped',
    ]);
  });

  it('forces exit 1 with a log line when stopping outlasts the timeout', async () => {
    const { logger, lines } = capturingLogger();
    const exited = new Promise<number>((resolve) => {
      dispose = exitOnSignals({ logger, timeoutMs: 50, stop: () => new Promise(() => {}), exit: resolve });
    });
    process.emit('SIGINT', 'SIGINT');
    expect(await exited).toBe(1);
    expect(lines.at(-1)).toMatchObject({
      level: 'error',
      msg: 'shutdown did not finish within 50 ms (FLOWMESH_SHUTDOWN_TIMEOUT_MS); forcing exit',
    });
  });

  it('exits 1 when stopping fails', async () => {
    const { logger, lines } = capturingLogger();
    const exited = new Promise<number>((resolve) => {
      dispose = exitOnSignals({
        logger,
        timeoutMs: 5_000,
        stop: () => Promise.reject(new Error('boom')),
        exit: resolve,
      });
    });
    process.emit('SIGTERM', 'SIGTERM');
    expect(await exited).toBe(1);
    expect(lines.at(-1)).toMatchObject({ level: 'error', msg: 'shutdown failed' });
  });
});
