import { defineRequest, MeshError, ReplyEnvelopeSchema } from '@flowmesh/contracts';
import { HandleRequest, MeshClient, MeshContext, type MeshConnection } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gate, MeshFixture } from './support/mesh-fixture.js';

const greet = defineRequest(
  'greeter.greeting.get',
  z.object({ name: z.string().min(1), times: z.number().int().positive() }).strict(),
  z.object({ greeting: z.string(), subject: z.string() }),
);
const slow = defineRequest('greeter.slow.get', z.object({}), z.object({}));
const broken = defineRequest('greeter.broken.get', z.object({}), z.object({ count: z.number() }));
const nobody = defineRequest('nobody.thing.get', z.object({}), z.object({}));

const calls = { greet: 0, slow: 0 };
const slowGate = gate();

@Controller()
class GreeterController {
  @HandleRequest(greet)
  greet(@Payload() req: z.output<typeof greet.request>, @Ctx() ctx: MeshContext) {
    calls.greet++;
    if (req.name === 'nobody') throw new MeshError('NOT_FOUND', 'no such person', { name: req.name });
    if (req.name === 'crash') throw new Error('db password is hunter2');
    return { greeting: Array(req.times).fill(`hello ${req.name}`).join(', '), subject: ctx.getSubject() };
  }

  @HandleRequest(slow)
  async slow() {
    calls.slow++;
    await slowGate.promise;
    return {};
  }

  @HandleRequest(broken)
  broken() {
    return { count: 'three' };
  }
}

describe('request/reply through MeshTransport and MeshClient', () => {
  let mesh: MeshFixture;
  let conn: MeshConnection;
  let client: MeshClient;

  beforeAll(async () => {
    mesh = await MeshFixture.create('rr');
    await mesh.startApp([GreeterController]);
    conn = await mesh.connect('caller');
    client = new MeshClient(conn);
  });

  afterAll(async () => {
    slowGate.open();
    await mesh?.dispose();
  });

  it('a Nest app with @HandleRequest answers a MeshClient request end to end', async () => {
    const reply = await client.request(greet, { name: 'Ada', times: 2 });
    expect(reply).toEqual({
      greeting: 'hello Ada, hello Ada',
      subject: `${mesh.prefix}.greeter.greeting.get`,
    });

    const greeter = client.client({ getGreeting: greet });
    await expect(greeter.getGreeting({ name: 'Bo', times: 1 })).resolves.toMatchObject({
      greeting: 'hello Bo',
    });
  });

  it('an answer over NATS max_payload is LIMIT_EXCEEDED at once, not a timeout', async () => {
    // 120 000 x "hello Ada, " is about 1.3 MB, over the server's 1 MB default.
    const error = await client
      .request(greet, { name: 'Ada', times: 120_000 }, { timeoutMs: 20_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MeshError);
    expect(error).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect((error as MeshError).message).toMatch(/greeter\.greeting\.get.*max_payload/);
  });

  it('an invalid payload never reaches the handler: the caller gets VALIDATION_FAILED with every path', async () => {
    const before = calls.greet;
    // Bypass the client's own check to reach the handler side with a bad payload.
    const raw = await conn.nc.request(
      conn.space.subject(greet.subject),
      JSON.stringify({ name: '', times: 'x', extra: 1 }),
      {
        timeout: 2_000,
      },
    );
    const envelope = ReplyEnvelopeSchema.parse(raw.json());
    expect(envelope.ok).toBe(false);
    if (envelope.ok) return;
    expect(envelope.error.code).toBe('VALIDATION_FAILED');
    expect(envelope.error.message).toContain(`invalid request on ${mesh.prefix}.greeter.greeting.get`);
    const paths = (envelope.error.details as { issues: Array<{ path: string }> }).issues.map(
      (issue) => issue.path,
    );
    expect(paths).toEqual(expect.arrayContaining(['name', 'times', '(root)']));
    expect(calls.greet).toBe(before);
  });

  it('the client refuses an invalid request before sending it', async () => {
    const before = calls.greet;
    const error = await client.request(greet, { name: 'Ada', times: -1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MeshError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', details: { issues: [{ path: 'times' }] } });
    expect(calls.greet).toBe(before);
  });

  it('a MeshError thrown by the handler reaches the caller with its code, message and details', async () => {
    await expect(client.request(greet, { name: 'nobody', times: 1 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'no such person',
      details: { name: 'nobody' },
    });
  });

  it('any other handler error is INTERNAL with a generic message, never its text', async () => {
    const error = await client.request(greet, { name: 'crash', times: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTERNAL', message: 'internal error' });
    expect(JSON.stringify(error)).not.toContain('hunter2');
  });

  it('a timeout is a TIMEOUT error naming the subject', async () => {
    const error = await client.request(slow, {}, { timeoutMs: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MeshError);
    expect(error).toMatchObject({
      code: 'TIMEOUT',
      message: `no reply on ${mesh.prefix}.greeter.slow.get within 150 ms`,
    });
  });

  it('a caller that stops waiting (its signal aborted) gets UNAVAILABLE at once, not the timeout', async () => {
    const stop = new AbortController();
    const seen = calls.slow;
    const asked = client
      .request(slow, {}, { timeoutMs: 60_000, signal: stop.signal })
      .catch((e: unknown) => e);
    await waitFor(() => calls.slow > seen || undefined, {
      timeoutMs: 10_000,
      description: 'the handler to be called',
    });
    stop.abort();
    expect(await asked).toMatchObject({ code: 'UNAVAILABLE', details: { abandoned: true } });
    await expect(client.request(slow, {}, { signal: stop.signal })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: 'the request was abandoned: its caller stopped waiting',
    });
  });

  it('no responders is UNAVAILABLE naming the subject', async () => {
    await expect(client.request(nobody, {})).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining(`${mesh.prefix}.nobody.thing.get`) as string,
    });
  });

  it('a reply that breaks the contract is refused by the caller', async () => {
    await expect(client.request(broken, {})).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining(`reply on ${mesh.prefix}.greeter.broken.get`) as string,
    });
  });

  it('replicas share requests through one queue group: each request is answered once', async () => {
    const second = await mesh.startApp([GreeterController]);
    const before = calls.greet;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.request(greet, { name: `n${i}`, times: 1 })),
    );
    expect(calls.greet - before).toBe(20);
    await second.app.close();
  });
});
