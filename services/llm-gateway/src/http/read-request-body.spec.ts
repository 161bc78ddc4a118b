import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { parseJsonBody, readRequestBody } from './read-request-body.js';

/** A request whose body arrives in `chunks`, with `headers`. */
function request(headers: Record<string, string>, ...chunks: Buffer[]): IncomingMessage {
  return Object.assign(Readable.from(chunks), { headers }) as unknown as IncomingMessage;
}

async function failure(promise: Promise<unknown>): Promise<MeshError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MeshError);
  return error as MeshError;
}

describe('readRequestBody', () => {
  const json = Buffer.from(
    JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  );

  it('reads a plain body as received, in however many chunks', async () => {
    const body = await readRequestBody(request({}, json.subarray(0, 10), json.subarray(10)), 1024);
    expect(body.equals(json)).toBe(true);
  });

  it('decodes gzip, deflate and zstd, whatever the case of the header', async () => {
    for (const [encoding, encoded] of [
      ['gzip', gzipSync(json)],
      ['Deflate', deflateSync(json)],
      ['zstd', zstdCompressSync(json)],
      ['identity', json],
    ] as const) {
      const body = await readRequestBody(request({ 'content-encoding': encoding }, encoded), 1024);
      expect(body.toString(), encoding).toBe(json.toString());
    }
  });

  it('bounds the decoded size, so a small compressed body cannot unfold past the limit', async () => {
    const unfolding = gzipSync(Buffer.alloc(64 * 1024, ' '));
    expect(unfolding.length).toBeLessThan(1024);
    const error = await failure(readRequestBody(request({ 'content-encoding': 'gzip' }, unfolding), 1024));
    expect(error).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: 'the request body is larger than 1024 bytes',
    });
  });

  it('refuses a declared length over the limit before reading, and a body that grows past it', async () => {
    expect(await failure(readRequestBody(request({ 'content-length': '2048' }), 1024))).toMatchObject({
      code: 'LIMIT_EXCEEDED',
    });
    const chunks = [Buffer.alloc(600), Buffer.alloc(600)];
    expect(await failure(readRequestBody(request({}, ...chunks), 1024))).toMatchObject({
      code: 'LIMIT_EXCEEDED',
    });
  });

  it('names an encoding it does not decode, and one the body does not match', async () => {
    expect(
      await failure(readRequestBody(request({ 'content-encoding': 'gzip, br' }, json), 1024)),
    ).toMatchObject({
      code: 'UNSUPPORTED',
      message: 'unsupported content encoding "gzip, br"',
    });
    expect(await failure(readRequestBody(request({ 'content-encoding': 'gzip' }, json), 1024))).toMatchObject(
      {
        code: 'VALIDATION_FAILED',
        message: 'the body is not valid gzip',
      },
    );
  });
});

describe('parseJsonBody', () => {
  it('parses JSON, an empty body being none', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1]}'))).toEqual({ a: [1] });
    expect(parseJsonBody(Buffer.alloc(0))).toBeUndefined();
  });

  it('refuses what is not JSON, and JSON nested deeper than 128 levels', () => {
    expect(() => parseJsonBody(Buffer.from('{"a":'))).toThrow('the body is not valid JSON');
    expect(parseJsonBody(Buffer.from(`${'['.repeat(128)}${']'.repeat(128)}`))).toHaveLength(1);
    expect(() => parseJsonBody(Buffer.from(`${'['.repeat(129)}${']'.repeat(129)}`))).toThrow(
      'the JSON body nests deeper than 128 levels',
    );
  });

  it('refuses a lone UTF-16 surrogate naming where it is, and takes real surrogate pairs', () => {
    expect(() => parseJsonBody(Buffer.from('{"messages":[{"content":"\\ud800"}]}'))).toThrow(
      'body.messages[0].content: holds a lone UTF-16 surrogate',
    );
    expect(parseJsonBody(Buffer.from('{"content":"\\ud83d\\ude00"}'))).toEqual({ content: '😀' });
  });
});
