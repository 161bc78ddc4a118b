import { describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonDepth, jsonDepthGuard, MAX_JSON_DEPTH } from './json-depth.guard.js';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { v: value };
  return value;
};

describe('jsonDepth', () => {
  it('counts containers, not scalars', () => {
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth({ a: [1, { b: null }] })).toBe(3);
    expect(jsonDepth(nested(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
  });

  it('walks 100 000 levels without overflowing the stack, stopping past the limit', () => {
    expect(jsonDepth(nested(100_000))).toBe(MAX_JSON_DEPTH + 1);
  });
});

describe('jsonDepthGuard', () => {
  const guard = (body: unknown) => {
    const res = { statusCode: 200, headers: {} as Record<string, string>, text: '' };
    let passed = false;
    jsonDepthGuard()(
      { body } as IncomingMessage & { body?: unknown },
      {
        set statusCode(code: number) {
          res.statusCode = code;
        },
        setHeader: (name: string, value: string) => (res.headers[name] = value),
        end: (text: string) => (res.text = text),
      } as unknown as ServerResponse,
      () => (passed = true),
    );
    return { passed, status: res.statusCode, body: res.text ? (JSON.parse(res.text) as unknown) : undefined };
  };

  it('passes well-formed bodies, astral characters included', () => {
    expect(guard({ args: { name: 'Ada 😀' } }).passed).toBe(true);
    expect(guard(undefined).passed).toBe(true);
  });

  it('refuses a body too deep, or with a lone surrogate, with 400 VALIDATION_FAILED', () => {
    expect(guard(nested(MAX_JSON_DEPTH + 1))).toMatchObject({ passed: false, status: 400 });
    expect(guard({ args: { name: '\ud800' } })).toEqual({
      passed: false,
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('args.name') as unknown,
        details: {
          issues: [
            { path: 'args.name', message: expect.stringContaining('lone UTF-16 surrogate') as unknown },
          ],
        },
      },
    });
  });
});
