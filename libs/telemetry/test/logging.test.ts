import { trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, createTestTracing, REDACTED, type TestTracing } from '../src/index.js';

function captureLogger() {
  const raw: string[] = [];
  const logger = createLogger({
    service: 'registry',
    level: 'debug',
    destination: { write: (line: string) => void raw.push(line) },
  });
  const lines = () => raw.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, raw, lines };
}

describe('createLogger', () => {
  let tracing: TestTracing;
  beforeEach(() => {
    tracing = createTestTracing({ serviceName: 'registry' });
  });
  afterEach(async () => {
    await tracing.shutdown();
  });

  it('writes one JSON line with service, level name, time and message', () => {
    const { logger, lines } = captureLogger();
    logger.info({ jobId: 'j1' }, 'job accepted');
    const [line, ...rest] = lines();
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ service: 'registry', level: 'info', msg: 'job accepted', jobId: 'j1' });
    expect(Date.parse(String(line?.time))).not.toBeNaN();
    expect(line).not.toHaveProperty('trace_id');
  });

  it('carries the trace and span ids of the span active in the handler', async () => {
    const { logger, lines } = captureLogger();
    const tracer = trace.getTracer('test');
    const ids = await tracer.startActiveSpan('handle fm.registry.resource.get', async (span) => {
      await Promise.resolve(); // across an await, as a real handler would be
      logger.info('handling');
      span.end();
      return span.spanContext();
    });
    logger.info('after');

    const [inside, after] = lines();
    expect(inside).toMatchObject({ msg: 'handling', trace_id: ids.traceId, span_id: ids.spanId });
    expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(after).not.toHaveProperty('trace_id');
    expect(tracing.spans().map((s) => s.name)).toEqual(['handle fm.registry.resource.get']);
  });

  it('never writes a secret, whether it sits under a secret key or looks like one', () => {
    const { logger, raw, lines } = captureLogger();
    const secrets = {
      password: 'hunter2-password',
      nestedToken: 'tok-nested-0001',
      deepKey: 'deep-api-key-0002',
      header: 'Bearer eyJabc.def-1234567890',
      openai: 'sk-proj-Q1w2E3r4T5y6U7i8O9p0AsDf',
      dbPassword: 'pg-s3cret',
      childToken: 'child-token-0003',
    };
    logger.info(
      {
        password: secrets.password,
        user: { name: 'ada', token: secrets.nestedToken },
        provider: { config: { auth: { apiKey: secrets.deepKey } } },
        req: { headers: { authorization: secrets.header, 'content-type': 'application/json' } },
        usage: { input_tokens: 12, output_tokens: 3 },
      },
      `calling provider with ${secrets.openai}`,
    );
    logger.error(
      new Error(`connect postgres://flow:${secrets.dbPassword}@db:5432/flowmesh refused`),
      'database down',
    );
    logger.child({ token: secrets.childToken }).warn('child logger');

    const output = raw.join('');
    for (const [name, secret] of Object.entries(secrets)) {
      expect(output, `${name} leaked`).not.toContain(secret);
    }
    const [first, second, third] = lines();
    expect(first).toMatchObject({
      password: REDACTED,
      user: { name: 'ada', token: REDACTED },
      provider: { config: { auth: { apiKey: REDACTED } } },
      req: { headers: { authorization: REDACTED, 'content-type': 'application/json' } },
      usage: { input_tokens: 12, output_tokens: 3 },
      msg: `calling provider with ${REDACTED}`,
    });
    expect(second).toMatchObject({ msg: 'database down' });
    expect(JSON.stringify(second)).toContain(`postgres://flow:${REDACTED}@db:5432/flowmesh`);
    expect(third).toMatchObject({ token: REDACTED, msg: 'child logger' });
  });

  it('drops lines below the configured level', () => {
    const raw: string[] = [];
    const logger = createLogger({
      service: 's',
      level: 'warn',
      destination: { write: (line: string) => void raw.push(line) },
    });
    logger.info('quiet');
    logger.warn('loud');
    expect(raw).toHaveLength(1);
  });
});
