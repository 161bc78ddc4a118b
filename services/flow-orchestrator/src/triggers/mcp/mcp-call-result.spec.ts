import { describe, expect, it } from 'vitest';
import { callResultOf, runErrorMessage } from './mcp-call-result.js';

const jobId = '0190a1b2-0000-7000-8000-000000000000';

describe('a tool call’s answer', () => {
  it('is the result as JSON text, an object also as structured content', () => {
    expect(callResultOf({ jobId, success: true, result: { n: 1 } })).toEqual({
      content: [{ type: 'text', text: '{"n":1}' }],
      structuredContent: { n: 1 },
      _meta: { 'flowmesh/job_id': jobId },
    });
    expect(callResultOf({ jobId, success: true, result: [1, 2] })).not.toHaveProperty('structuredContent');
    expect(callResultOf({ jobId, success: true, result: undefined }).content).toEqual([
      { type: 'text', text: 'null' },
    ]);
  });

  it('is a tool error with the run’s message when the run failed', () => {
    const failed = callResultOf({
      jobId,
      success: false,
      result: { error: { name: 'Error', message: 'boom' } },
    });
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'boom' }] });
    expect(runErrorMessage({ error: { code: 7 } })).toBe('{"code":7}');
    expect(runErrorMessage('plain')).toBe('"plain"');
  });
});
