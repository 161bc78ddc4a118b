import { describe, expect, it } from 'vitest';
import { createLogger } from './create-logger.js';
import { PinoNestLogger } from './pino-nest.logger.js';

function capture(level: 'info' | 'debug' = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    service: 'svc',
    level,
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { nest: new PinoNestLogger(logger), lines };
}

describe('PinoNestLogger', () => {
  it('turns Nest context into a field', () => {
    const { nest, lines } = capture();
    nest.log('Mapped {/healthz, GET} route', 'RouterExplorer');
    expect(lines[0]).toMatchObject({
      level: 'info',
      msg: 'Mapped {/healthz, GET} route',
      context: 'RouterExplorer',
    });
  });

  it('keeps the stack Nest passes to error()', () => {
    const { nest, lines } = capture();
    nest.error('boom', 'Error: boom\n    at handler (app.js:1:1)', 'ExceptionsHandler');
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'boom', context: 'ExceptionsHandler' });
    expect(lines[0]?.stack).toContain('at handler');
  });

  it('logs Error objects with pino error serialization', () => {
    const { nest, lines } = capture();
    nest.error(new Error('lost connection'), 'Db');
    expect(lines[0]).toMatchObject({
      msg: 'lost connection',
      context: 'Db',
      err: { message: 'lost connection' },
    });
  });

  it('respects the level (verbose is trace)', () => {
    const { nest, lines } = capture('debug');
    nest.verbose('noise');
    nest.debug('useful');
    expect(lines.map((line) => line.msg)).toEqual(['useful']);
  });
});
