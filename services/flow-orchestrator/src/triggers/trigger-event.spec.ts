import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  includedHeaders,
  includedQuery,
  mainArgsOf,
  readTriggerBody,
  triggerHeaders,
  triggerQuery,
  webhookEvent,
  type TriggerHttpRequest,
} from './trigger-event.js';

/** A request as Express hands it over: `parsed` as its JSON parser left it, `stream` as the unread body. */
function request(options: {
  headers?: Record<string, string | string[]>;
  url?: string;
  parsed?: unknown;
  stream?: string;
}): TriggerHttpRequest {
  const req = Readable.from(
    options.stream === undefined ? [] : [Buffer.from(options.stream)],
  ) as unknown as TriggerHttpRequest;
  Object.assign(req, { headers: options.headers ?? {}, url: options.url ?? '/', body: options.parsed });
  return req;
}
const limits = { raw: false, limitBytes: 1_000 };

describe('trigger events', () => {
  it('reads a JSON body as parsed, its text with raw', async () => {
    const req = request({ headers: { 'content-type': 'application/json' }, parsed: { a: 1 } });
    expect(await readTriggerBody(req, limits)).toEqual({ body: { a: 1 }, rawString: null });
    expect(await readTriggerBody(req, { ...limits, raw: true })).toEqual({
      body: { a: 1 },
      rawString: '{"a":1}',
    });
  });

  it('parses the bytes a raw-body reader kept, exactly, within the depth limit', async () => {
    const text = '{ "a" :  1 }';
    const req = request({ headers: { 'content-type': 'application/json' } });
    req.rawBody = Buffer.from(text);
    expect(await readTriggerBody(req, { ...limits, raw: true })).toEqual({ body: { a: 1 }, rawString: text });
    const deep = request({ headers: { 'content-type': 'application/json' } });
    deep.rawBody = Buffer.from('['.repeat(200) + ']'.repeat(200));
    await expect(readTriggerBody(deep, { ...limits, limitBytes: 10_000 })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    const over = request({ headers: { 'content-type': 'application/json' } });
    over.rawBodyTooLarge = true;
    await expect(readTriggerBody(over, limits)).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
  });

  it('reads a body without content type as JSON, an empty one as {}', async () => {
    expect(await readTriggerBody(request({ stream: '[1,2]' }), limits)).toEqual({
      body: [1, 2],
      rawString: null,
    });
    expect(await readTriggerBody(request({}), limits)).toEqual({ body: {}, rawString: null });
    await expect(readTriggerBody(request({ stream: '{nope' }), limits)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('keeps a text or XML body in raw_string, reads a form, refuses other types', async () => {
    const text = request({ headers: { 'content-type': 'text/plain; charset=utf-8' }, stream: 'hello' });
    expect(await readTriggerBody(text, limits)).toEqual({ body: {}, rawString: 'hello' });
    const xml = request({ headers: { 'content-type': 'application/xml' }, stream: '<a/>' });
    expect(await readTriggerBody(xml, limits)).toEqual({ body: {}, rawString: '<a/>' });
    const form = request({
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      stream: 'a=1&b=x+y',
    });
    expect(await readTriggerBody(form, { ...limits, raw: true })).toEqual({
      body: { a: '1', b: 'x y' },
      rawString: 'a=1&b=x+y',
    });
    const binary = request({ headers: { 'content-type': 'application/octet-stream' }, stream: 'x' });
    await expect(readTriggerBody(binary, limits)).rejects.toMatchObject({ code: 'UNSUPPORTED' });
  });

  it('reads a CloudEvent as Windmill does: data as the body, the attributes as WEBHOOK__METADATA__', async () => {
    const type = { 'content-type': 'application/cloudevents+json' };
    const event = { specversion: '1.0', id: 'e1', type: 'order.created', data: { order: 7 } };
    expect(await readTriggerBody(request({ headers: type, stream: JSON.stringify(event) }), limits)).toEqual({
      body: { order: 7, WEBHOOK__METADATA__: { specversion: '1.0', id: 'e1', type: 'order.created' } },
      rawString: null,
    });
    const scalar = JSON.stringify({ id: 'e2', data: 1.5 });
    expect((await readTriggerBody(request({ headers: type, stream: scalar }), limits)).body).toEqual({
      body: 1.5,
      WEBHOOK__METADATA__: { id: 'e2' },
    });
    const batch = request({
      headers: { 'content-type': 'application/cloudevents-batch+json' },
      stream: '[]',
    });
    await expect(readTriggerBody(batch, limits)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('refuses a body over the limit', async () => {
    const big = request({ headers: { 'content-type': 'text/plain' }, stream: 'x'.repeat(2_000) });
    await expect(readTriggerBody(big, limits)).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
  });

  it('never hands credentials to user code', () => {
    const req = request({
      headers: { authorization: 'Bearer x', cookie: 'c=1', 'x-event': 'push', accept: ['a', 'b'] },
      url: '/api/w/main/jobs/run/f/f/x?token=secret&skip_preprocessor=true&a=1&a=2&b=',
    });
    expect(triggerHeaders(req)).toEqual({ 'x-event': 'push', accept: 'a, b' });
    expect(triggerQuery(req, new Set(['skip_preprocessor']))).toEqual({ a: '2', b: '' });
    expect(includedHeaders(triggerHeaders(req), 'X-Event,Authorization')).toEqual({ x_event: 'push' });
    expect(includedQuery({ a: '2', b: '' }, 'a, c')).toEqual({ a: '2' });
  });

  it("builds Windmill's webhook event and main arguments", () => {
    const body = { body: { a: 1 }, rawString: null };
    expect(webhookEvent({ body, query: { q: '1' }, headers: { h: 'v' } })).toEqual({
      kind: 'webhook',
      body: { a: 1 },
      raw_string: null,
      query: { q: '1' },
      headers: { h: 'v' },
    });
    expect(mainArgsOf(body)).toEqual({ a: 1 });
    expect(mainArgsOf(body, { wrapBody: true, extra: { x_event: 'push' } })).toEqual({
      body: { a: 1 },
      x_event: 'push',
    });
    expect(mainArgsOf({ body: [1], rawString: '[1]' })).toEqual({ body: [1], raw_string: '[1]' });
  });
});
