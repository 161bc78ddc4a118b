import type { Logger } from '@flowmesh/telemetry';
import type { DataSource } from 'typeorm';
import { describe, expect, it, vi } from 'vitest';
import { LlmCallAuditWriter, type LlmCallAuditRow } from './llm-call-audit.writer.js';

const row = (model: string): LlmCallAuditRow => ({
  workspace: 'main',
  identity: 'ada',
  identityKind: 'user',
  jobId: null,
  source: 'http',
  operation: 'chat',
  resource: 'f/ai/openai',
  provider: 'openai',
  model,
  responseModel: null,
  stream: false,
  inputTokens: 1,
  outputTokens: 2,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  reasoningTokens: null,
  status: 'ok',
  httpStatus: 200,
  errorClass: null,
  latencyMs: 3,
  timeToFirstChunkMs: null,
  requestBody: null,
  responseBody: null,
});

function writerWith(query: (sql: string, params: unknown[]) => Promise<unknown>) {
  const logger = { warn: vi.fn(), error: vi.fn() } as unknown as Logger;
  const writer = new LlmCallAuditWriter({ query } as unknown as DataSource, logger);
  return { writer, logger };
}

describe('LlmCallAuditWriter', () => {
  it('writes a batch as one JSON parameter', async () => {
    const written: unknown[] = [];
    const { writer } = writerWith((_sql, params) => {
      written.push(...(JSON.parse(params[0] as string) as unknown[]));
      return Promise.resolve([]);
    });
    writer.add(row('a'));
    writer.add(row('b'));
    await writer.flush();
    expect(written).toEqual([row('a'), row('b')]);
  });

  it('keeps the rows of a failed INSERT and writes them on a later try', async () => {
    const written: string[] = [];
    let fail = true;
    const { writer } = writerWith((_sql, params) => {
      if (fail) {
        fail = false;
        return Promise.reject(new Error('connection refused'));
      }
      written.push(...(JSON.parse(params[0] as string) as LlmCallAuditRow[]).map((r) => r.model));
      return Promise.resolve([]);
    });
    writer.add(row('a'));
    await writer.flush();
    expect(written).toEqual([]);
    writer.add(row('b'));
    await writer.beforeApplicationShutdown();
    expect(written).toEqual(['a', 'b']);
  });

  it('logs what still cannot be written at shutdown (without bodies) instead of dropping it silently', async () => {
    const { writer, logger } = writerWith(() => Promise.reject(new Error('down')));
    writer.add({ ...row('a'), requestBody: { secret: 'content' } });
    await writer.beforeApplicationShutdown();
    const errors = vi.mocked(logger.error).mock.calls;
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toContain('"model":"a"');
    expect(JSON.stringify(errors[0])).not.toContain('content');
  }, 10_000);
});
