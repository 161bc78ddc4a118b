import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from './config.error.js';
import { emptyConfigSchema, loadServiceConfig } from './service-config.js';
import { list, wholeNumber } from './setting.schemas.js';

function problemLine(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.describe('flowmesh llm-gateway');
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadServiceConfig', () => {
  it('fills every common setting with its local default', () => {
    const config = loadServiceConfig('llm-gateway', emptyConfigSchema, {});
    expect(config).toEqual({
      service: 'llm-gateway',
      role: 'service',
      processName: 'llm-gateway',
      nats: { url: 'nats://127.0.0.1:4222', requestRetryMs: 30_000 },
      database: { url: 'postgres://postgres@127.0.0.1:5432/flowmesh' },
      subjectPrefix: 'fm',
      http: { host: '127.0.0.1', port: 8103, bodyLimitBytes: 16 * 1024 * 1024 },
      logLevel: 'info',
      shutdownTimeoutMs: 10_000,
      streams: { storage: 'file', maxBytes: undefined },
      otel: {},
    });
  });

  it('reads overrides, passes OTEL_* through and treats empty variables as unset', () => {
    const config = loadServiceConfig('memory-service', emptyConfigSchema, {
      NATS_URL: 'nats://a:4222,nats://b:4222',
      DATABASE_URL: 'postgresql://u:p@db/x',
      FLOWMESH_SUBJECT_PREFIX: 't1.abc',
      FLOWMESH_HTTP_HOST: '0.0.0.0',
      PORT: '9000',
      LOG_LEVEL: 'debug',
      FLOWMESH_SHUTDOWN_TIMEOUT_MS: '2500',
      FLOWMESH_STREAM_STORAGE: 'memory',
      FLOWMESH_STREAM_MAX_BYTES: '33554432',
      FLOWMESH_HTTP_BODY_LIMIT_BYTES: '1048576',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      FLOWMESH_ROLE: '',
    });
    expect(config.nats.url).toBe('nats://a:4222,nats://b:4222');
    expect(config.subjectPrefix).toBe('t1.abc');
    expect(config.http).toEqual({ host: '0.0.0.0', port: 9000, bodyLimitBytes: 1024 * 1024 });
    expect(config.logLevel).toBe('debug');
    expect(config.shutdownTimeoutMs).toBe(2500);
    expect(config.streams).toEqual({ storage: 'memory', maxBytes: 32 * 1024 * 1024 });
    expect(config.otel).toEqual({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
    expect(config.role).toBe('service');
  });

  it('prefers the service port setting over PORT', () => {
    const config = loadServiceConfig('llm-gateway', emptyConfigSchema, {
      PORT: '9000',
      LLM_GATEWAY_HTTP_PORT: '0',
    });
    expect(config.http.port).toBe(0);
  });

  it('starts the worker role of a service that has one, on the worker port', () => {
    const config = loadServiceConfig('flow-orchestrator', emptyConfigSchema, {
      FLOWMESH_ROLE: 'worker',
      FLOW_ORCHESTRATOR_WORKER_HTTP_PORT: '8999',
    });
    expect(config).toMatchObject({
      role: 'worker',
      processName: 'flow-orchestrator-worker',
      http: { port: 8999 },
    });
  });

  it('merges the service schema into the typed config', () => {
    const own = z.object({ FLOWMESH_WORKER_TAGS: list().default(['default']) }).transform((env) => ({
      workerTags: env.FLOWMESH_WORKER_TAGS,
    }));
    expect(loadServiceConfig('flow-orchestrator', own, { FLOWMESH_WORKER_TAGS: 'a, b' }).workerTags).toEqual([
      'a',
      'b',
    ]);
    expect(loadServiceConfig('flow-orchestrator', own, {}).workerTags).toEqual(['default']);
  });

  it('reads a whole number, 0 included, and names a negative one', () => {
    const own = z.object({ CACHE_BYTES: wholeNumber().default(5) });
    expect(loadServiceConfig('llm-gateway', own, { CACHE_BYTES: '0' }).CACHE_BYTES).toBe(0);
    expect(loadServiceConfig('llm-gateway', own, {}).CACHE_BYTES).toBe(5);
    expect(problemLine(() => loadServiceConfig('llm-gateway', own, { CACHE_BYTES: '-1' }))).toContain(
      'CACHE_BYTES must be a whole number (0 or more) (got "-1")',
    );
  });

  it('names the setting and what is wrong in one line', () => {
    expect(
      problemLine(() => loadServiceConfig('llm-gateway', emptyConfigSchema, { NATS_URL: 'http://x' })),
    ).toBe(
      'flowmesh llm-gateway: invalid configuration: NATS_URL must be a nats:// URL (or a comma-separated list of them) (got "http://x")',
    );
  });

  it('lists every problem, the service own settings included, on the same line', () => {
    const own = z.object({ GATEWAY_KEY_FILE: z.string({ error: () => 'is required' }) });
    const line = problemLine(() =>
      loadServiceConfig('llm-gateway', own, {
        LLM_GATEWAY_HTTP_PORT: '70000',
        LOG_LEVEL: 'loud',
        FLOWMESH_SHUTDOWN_TIMEOUT_MS: '0',
      }),
    );
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    );
    expect(line).toContain('FLOWMESH_SHUTDOWN_TIMEOUT_MS must be a positive whole number (got "0")');
    expect(line).toContain('LLM_GATEWAY_HTTP_PORT must be a port number (0-65535) (got "70000")');
    expect(line).toContain('GATEWAY_KEY_FILE is required');
  });

  it('refuses a role the service does not have', () => {
    expect(
      problemLine(() => loadServiceConfig('llm-gateway', emptyConfigSchema, { FLOWMESH_ROLE: 'worker' })),
    ).toBe(
      'flowmesh llm-gateway: invalid configuration: FLOWMESH_ROLE must be one of service (got "worker")',
    );
  });

  it('never echoes a password or a secret', () => {
    const own = z.object({ FLOWMESH_ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters') });
    const line = problemLine(() =>
      loadServiceConfig('llm-gateway', own, {
        DATABASE_URL: 'mysql://app:hunter2@db/x',
        FLOWMESH_ADMIN_TOKEN: 'short',
      }),
    );
    expect(line).toContain('DATABASE_URL must be a postgres:// URL (got "mysql://app:***@db/x")');
    expect(line).toContain('FLOWMESH_ADMIN_TOKEN must be at least 32 characters (got "<redacted>")');
    expect(line).not.toContain('hunter2');
    expect(line).not.toContain('short');
  });

  it('rejects a subject prefix NATS cannot carry', () => {
    expect(
      problemLine(() =>
        loadServiceConfig('llm-gateway', emptyConfigSchema, { FLOWMESH_SUBJECT_PREFIX: 'a b' }),
      ),
    ).toContain('FLOWMESH_SUBJECT_PREFIX must be tokens');
  });
});
