// Messaging benchmark: request/reply round trip and JetStream publish-to-handler latency (p50,
// p99) and throughput through @flowmesh/messaging, beside the raw @nats-io clients doing the same
// in the same run. See README.md. Run: npx tsc -b libs/messaging && npx node bench/messaging/run.js
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { defineEvent, defineRequest, STREAMS, SubjectSpace } from '@flowmesh/contracts';
import {
  connectMesh,
  ensureStreams,
  HandleEvent,
  HandleRequest,
  MeshClient,
  MeshTransport,
} from '@flowmesh/messaging';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { z } from 'zod';
import { consumeRaw, createRawStream, rawPublish, rawRequest, serveRawRequests } from './raw-nats.js';
import { ms, rate, summarize } from './stats.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const N = Number(process.env.BENCH_MESSAGES ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WINDOW = 64;
const PREFETCH = 16;
const TARGET = 1.25;

const prefix = `bench${randomBytes(3).toString('hex')}`;
const space = new SubjectSpace(prefix);

const echo = defineRequest(
  'bench.echo.get',
  z.object({ id: z.number().int(), name: z.string() }),
  z.object({ id: z.number().int(), ok: z.boolean() }),
);
const ticked = defineEvent('evt.bench.ticked', z.object({ id: z.number().int(), sentAt: z.number() }));

// Handler state shared by the library and raw paths: who waits for which id.
const arrivals = new Map();
function arrived(id) {
  const waiter = arrivals.get(id);
  if (waiter) {
    arrivals.delete(id);
    waiter(performance.now());
  }
}
const whenArrives = (id) => new Promise((resolve) => arrivals.set(id, resolve));

class BenchController {
  echo(req) {
    return { id: req.id, ok: true };
  }
  ticked(event) {
    arrived(event.id);
  }
}
// No decorator syntax in plain JS: apply them as TypeScript would.
Reflect.decorate(
  [HandleRequest(echo)],
  BenchController.prototype,
  'echo',
  Object.getOwnPropertyDescriptor(BenchController.prototype, 'echo'),
);
Reflect.decorate(
  [HandleEvent(ticked, { durable: 'bench', concurrency: PREFETCH, deliverPolicy: 'new' })],
  BenchController.prototype,
  'ticked',
  Object.getOwnPropertyDescriptor(BenchController.prototype, 'ticked'),
);
Reflect.decorate([Controller()], BenchController);
class BenchModule {}
Reflect.decorate([Module({ controllers: [BenchController] })], BenchModule);

/**
 * Sequential samples, alternating raw and library message by message, so load from anything else
 * on the machine falls on both alike. Each sample starts on a fresh turn of the event loop, so
 * work one path defers after its handler (acks, span ends) is not charged to the other's sample.
 * `measure(i)` resolves to one latency in ms.
 */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function interleaved(rawMeasure, libMeasure) {
  const raw = [];
  const lib = [];
  for (let i = 0; i < N; i++) {
    await nextTurn();
    raw.push(await rawMeasure(i));
    await nextTurn();
    lib.push(await libMeasure(i));
  }
  return { raw, lib };
}

const roundTrip = (send) => async (i) => {
  const start = performance.now();
  await send(i);
  return performance.now() - start;
};

/** Publish -> handler hand-off; the handler timestamps the arrival. */
const handoff = (publish) => async (id) => {
  const arrival = whenArrives(id);
  const start = performance.now();
  const [at] = await Promise.all([arrival, publish(id)]);
  return at - start;
};

async function throughput(send) {
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: WINDOW }, async () => {
      while (next < N) await send(next++);
    }),
  );
  return N / ((performance.now() - start) / 1000);
}

async function handoffThroughput(publish, base) {
  const all = Array.from({ length: N }, (_, i) => whenArrives(base + i));
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: WINDOW }, async () => {
      while (next < N) await publish(base + next++);
    }),
  );
  await Promise.all(all);
  return N / ((performance.now() - start) / 1000);
}

function report(title, raw, lib) {
  const r = summarize(raw.samples);
  const l = summarize(lib.samples);
  const ratio = l.p50 / r.p50;
  console.log(
    `\n${title} (${r.n} sequential samples each, raw and library interleaved; throughput with ${WINDOW} in flight)`,
  );
  console.log(`  raw @nats-io   p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  ${rate(raw.rate)}`);
  console.log(`  @flowmesh      p50 ${ms(l.p50)}  p99 ${ms(l.p99)}  ${rate(lib.rate)}`);
  console.log(
    `  ratio p50 ${ratio.toFixed(2)}x (+${((ratio - 1) * 100).toFixed(1)}%), p99 ${(l.p99 / r.p99).toFixed(2)}x, ` +
      `throughput ${(lib.rate / raw.rate).toFixed(2)}x   target p50 <= ${TARGET}x: ${ratio <= TARGET ? 'PASS' : 'FAIL'}`,
  );
  return ratio <= TARGET;
}

async function main() {
  console.log(
    `node ${process.version}, NATS ${NATS_URL}, prefix ${prefix}, ${N} messages x ${ROUNDS} rounds`,
  );
  const server = await connectMesh({ url: NATS_URL, name: 'bench-server', prefix });
  const caller = await connectMesh({ url: NATS_URL, name: 'bench-caller', prefix });
  await ensureStreams(caller);
  const { stream: rawStream, subject: rawSubject } = await createRawStream(caller, 'RAW');

  const app = await NestFactory.createMicroservice(BenchModule, {
    strategy: new MeshTransport(server, { service: 'bench', drainOnClose: false }),
    logger: false,
  });
  await app.listen();
  const rawSub = serveRawRequests(server, space.subject('raw.echo.get'), 'bench');
  const rawConsumer = await consumeRaw(server, rawStream, PREFETCH, (event) => arrived(event.id));
  await server.nc.flush();

  const client = new MeshClient(caller);
  const rawEcho = (i) => rawRequest(caller, space.subject('raw.echo.get'), { id: i, name: 'bench' });
  const libEcho = (i) => client.request(echo, { id: i, name: 'bench' });
  const rawTick = (id) => rawPublish(caller, rawSubject, { id, sentAt: 0 });
  const libTick = (id) => client.publishEvent(ticked, { id, sentAt: 0 });

  const rr = { raw: { samples: [], rate: 0 }, lib: { samples: [], rate: 0 } };
  const js = { raw: { samples: [], rate: 0 }, lib: { samples: [], rate: 0 } };
  let base = 0;
  const ids = () => (base += N);
  // Warm up both paths (JIT, connections, consumers) before measuring.
  await interleaved(roundTrip(rawEcho), roundTrip(libEcho));
  let offset = ids() * 2;
  await interleaved(
    (i) => handoff(rawTick)(offset + 2 * i),
    (i) => handoff(libTick)(offset + 2 * i + 1),
  );

  for (let round = 0; round < ROUNDS; round++) {
    const echoes = await interleaved(roundTrip(rawEcho), roundTrip(libEcho));
    rr.raw.samples.push(...echoes.raw);
    rr.lib.samples.push(...echoes.lib);
    offset = ids() * 2;
    const ticks = await interleaved(
      (i) => handoff(rawTick)(offset + 2 * i),
      (i) => handoff(libTick)(offset + 2 * i + 1),
    );
    js.raw.samples.push(...ticks.raw);
    js.lib.samples.push(...ticks.lib);
    // Throughput cannot interleave: alternate whole runs instead.
    rr.raw.rate += (await throughput(rawEcho)) / ROUNDS;
    rr.lib.rate += (await throughput(libEcho)) / ROUNDS;
    js.raw.rate += (await handoffThroughput(rawTick, ids() * 4)) / ROUNDS;
    js.lib.rate += (await handoffThroughput(libTick, ids() * 4)) / ROUNDS;
  }

  const ok = [
    report('request/reply round trip', rr.raw, rr.lib),
    report('JetStream publish -> handler', js.raw, js.lib),
  ];

  rawSub.unsubscribe();
  await rawConsumer.close();
  await app.close();
  for (const def of [...Object.values(STREAMS).map((s) => space.streamName(s.name)), rawStream]) {
    await caller.jsm.streams.delete(def).catch(() => false);
  }
  await server.drain();
  await caller.drain();
  process.exitCode = ok.every(Boolean) ? 0 : 1;
}

await main();
