import { defineRequest, MeshError, SAFE_TO_REPEAT } from '@flowmesh/contracts';
import { MeshClient, type MeshConnection } from '@flowmesh/messaging';
import type { Subscription } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MeshFixture } from './support/mesh-fixture.js';

/**
 * Requests safe to repeat ride out a restart of the service that answers them: sent again with
 * backoff while no service answers (or none answers in time), for a bounded window; commands are
 * never sent again. Real NATS; the "service" is a subscription that comes, goes and swallows.
 */
const read = defineRequest('restarting.thing.get', z.object({ n: z.number() }), z.object({ n: z.number() }), {
  ...SAFE_TO_REPEAT,
  timeoutMs: 300,
});
const command = defineRequest(
  'restarting.thing.create',
  z.object({ n: z.number() }),
  z.object({ n: z.number() }),
);

let mesh: MeshFixture;
let service: MeshConnection;
let caller: MeshConnection;

beforeAll(async () => {
  mesh = await MeshFixture.create('retry');
  service = await mesh.connect('service');
  caller = await mesh.connect('caller');
});

afterAll(async () => {
  await mesh?.dispose();
});

/** A responder on `subject` that answers `{ n }` back, after swallowing the first `swallow` requests. */
function answer(subject: string, swallow = 0): { sub: Subscription; seen: () => number } {
  let seen = 0;
  const sub = service.nc.subscribe(mesh.space.subject(subject), {
    callback: (_error, msg) => {
      seen++;
      if (seen <= swallow) return;
      msg.respond(JSON.stringify({ ok: true, data: msg.json<{ n: number }>() }));
    },
  });
  return { sub, seen: () => seen };
}

function recordingLog(): {
  warn: string[];
  log: string[];
  sink: { warn(m: string): void; log(m: string): void };
} {
  const warn: string[] = [];
  const log: string[] = [];
  return { warn, log, sink: { warn: (m) => warn.push(m), log: (m) => log.push(m) } };
}

describe('requests safe to repeat across a restart', () => {
  it('a read with no responder is sent again until the service is back, and the outage is said once', async () => {
    const said = recordingLog();
    const client = new MeshClient(caller, { retryForMs: 20_000, log: said.sink });
    const asked = Promise.all([1, 2, 3].map((n) => client.request(read, { n })));
    // The service "restarts": nothing subscribed for a while, then it is back.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const back = answer(read.subject);
    await service.nc.flush();
    expect(await asked).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(said.warn).toHaveLength(1);
    expect(said.warn[0]).toMatch(
      /^restarting does not answer \(UNAVAILABLE: no service answers .*\); requests safe to repeat are sent again for up to 20 s$/,
    );
    expect(said.log).toHaveLength(1);
    expect(said.log[0]).toMatch(
      /^restarting answers again after \d+\.\d s; \d+ requests were sent again meanwhile$/,
    );
    back.sub.unsubscribe();
  });

  it('a read whose request was swallowed (its service died holding it) is sent again after the timeout', async () => {
    const client = new MeshClient(caller, { retryForMs: 20_000, log: recordingLog().sink });
    const subject = 'restarting.swallow.get';
    const swallowed = defineRequest(subject, read.request, read.reply, { ...SAFE_TO_REPEAT, timeoutMs: 300 });
    const responder = answer(subject, 2);
    await service.nc.flush();
    await expect(client.request(swallowed, { n: 7 })).resolves.toEqual({ n: 7 });
    expect(responder.seen()).toBe(3);
    responder.sub.unsubscribe();
  });

  it('a command is never sent again: the first missing reply fails it', async () => {
    const client = new MeshClient(caller, { retryForMs: 20_000, log: recordingLog().sink });
    await expect(client.request(command, { n: 1 })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    const responder = answer(command.subject, 1);
    await service.nc.flush();
    await expect(client.request(command, { n: 1 }, { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    expect(responder.seen()).toBe(1);
    responder.sub.unsubscribe();
  });

  it('a read gives up with the last error once its window has passed', async () => {
    const client = new MeshClient(caller, { retryForMs: 600, log: recordingLog().sink });
    const error = await client.request(read, { n: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MeshError);
    expect(error).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('no service answers') as string,
    });
    // A request's own window overrides the client's: 0 never sends again.
    const long = new MeshClient(caller, { retryForMs: 60_000, log: recordingLog().sink });
    await expect(long.request(read, { n: 1 }, { retryForMs: 0 })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
  });

  it('a caller that stops waiting stops the retries at once', async () => {
    const client = new MeshClient(caller, { retryForMs: 60_000, log: recordingLog().sink });
    const stop = new AbortController();
    const asked = client.request(read, { n: 1 }, { signal: stop.signal }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 400));
    stop.abort();
    expect(await asked).toMatchObject({ code: 'UNAVAILABLE', details: { abandoned: true } });
  });

  it('an answer, even an error, is never sent again', async () => {
    const client = new MeshClient(caller, { retryForMs: 20_000, log: recordingLog().sink });
    const subject = 'restarting.refuse.get';
    const refused = defineRequest(subject, read.request, read.reply, SAFE_TO_REPEAT);
    let seen = 0;
    const sub = service.nc.subscribe(mesh.space.subject(subject), {
      callback: (_error, msg) => {
        seen++;
        msg.respond(JSON.stringify({ ok: false, error: { code: 'NOT_FOUND', message: 'no such thing' } }));
      },
    });
    await service.nc.flush();
    await expect(client.request(refused, { n: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(seen).toBe(1);
    sub.unsubscribe();
  });
});
