// Memory benchmark: load and save of agent memories of 10, 200 and 2 000 messages through
// memory-service's own use cases (LoadMemoryUseCase, SaveMemoryUseCase: key resolution, size
// rules, versioned replace), in the database store and the S3 store (s3rver), beside a plain
// Postgres row read and write of the same JSON in the same run, on the same connection pool.
// NATS and the registry's permission check are left out on both sides: they cost the same
// whatever the store, and bench/messaging measures them.
// Run: npm run build (or npx tsc -b services/memory-service), then node bench/memory/run.js
import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_MEMORY_SIZE_BYTES } from '@flowmesh/contracts';
import { prepareDatabase } from '@flowmesh/persistence';
import { createLogger } from '@flowmesh/telemetry';
import pg from 'pg';
import S3rver from 's3rver';
import { FlowAccess } from '../../services/memory-service/dist/access/flow-access.service.js';
import { LoadMemoryUseCase } from '../../services/memory-service/dist/memory/load-memory.use-case.js';
import { MemoryRepository } from '../../services/memory-service/dist/memory/memory.repository.js';
import { MemoryStore } from '../../services/memory-service/dist/memory/memory.store.js';
import { SaveMemoryUseCase } from '../../services/memory-service/dist/memory/save-memory.use-case.js';
import { MEMORY_SERVICE_MIGRATIONS } from '../../services/memory-service/dist/migrations/index.js';
import { S3ObjectStorage } from '../../services/memory-service/dist/storage/s3-object-storage.js';
import { agentHistory } from './history.js';
import { kb, ms, summarize } from './stats.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SIZES = [10, 200, 2000];
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const WARMUP = 30;
const TARGET = 1.5;
const BUCKET = 'bench-memory';

/** Every caller may read every flow: the permission check is not what is measured. */
const allowAll = new FlowAccess({
  checkAccess: async () => ({ allowed: true }),
  authenticate: async () => ({}),
});

/**
 * The database store with its 100 KB limit lifted: a 2 000-message memory is over it, and the
 * size rules would trim it before the write. Used only for memories over the limit.
 */
class UncappedMemoryStore extends MemoryStore {
  get capacityBytes() {
    return null;
  }
}

function databaseUrlFor(name) {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function main() {
  const dbName = `bench_memory_${randomBytes(3).toString('hex')}`;
  const logger = createLogger({ service: 'bench-memory', level: 'warn' });
  const dataSource = await prepareDatabase({
    databaseUrl: databaseUrlFor(dbName),
    schema: 'memory',
    entities: [],
    migrations: MEMORY_SERVICE_MIGRATIONS,
    logger,
  });
  await dataSource.query(`CREATE TABLE plain_row (id uuid PRIMARY KEY, body jsonb NOT NULL)`);

  const s3Dir = await mkdtemp(join(tmpdir(), 'bench-s3rver-'));
  const s3rver = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const { port } = await s3rver.run();
  const objects = new S3ObjectStorage({
    bucket: BUCKET,
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    forcePathStyle: true,
    timeoutMs: 10_000,
  });

  const rows = new MemoryRepository(dataSource);
  const stores = {
    database: new MemoryStore(rows),
    'database (no limit)': new UncappedMemoryStore(rows),
    s3: new MemoryStore(rows, objects),
  };
  const useCases = (store) => ({
    load: new LoadMemoryUseCase(allowAll, store),
    save: new SaveMemoryUseCase(allowAll, store),
  });

  console.log(
    `node ${process.version}, Postgres ${new URL(DATABASE_URL).host} (database ${dbName}), s3rver :${port}`,
  );
  console.log(
    `${SAMPLES} sequential samples per operation, store and plain row interleaved; target <= ${TARGET}x the plain row\n`,
  );
  const verdicts = [];

  for (const count of SIZES) {
    const messages = agentHistory(count);
    const json = JSON.stringify(messages);
    const bytes = Buffer.byteLength(json);
    const dbStore = bytes > MAX_MEMORY_SIZE_BYTES ? 'database (no limit)' : 'database';
    console.log(`${count} messages, ${kb(bytes)} serialized`);

    const plainId = randomUUID();
    const plainWrite = () =>
      dataSource.query(
        `INSERT INTO plain_row (id, body) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body`,
        [plainId, JSON.stringify(messages)],
      );
    const plainRead = async () =>
      (await dataSource.query(`SELECT body FROM plain_row WHERE id = $1`, [plainId]))[0].body;

    for (const storeName of [dbStore, 's3']) {
      const { load, save } = useCases(stores[storeName]);
      const request = {
        actor: { token: 'bench' },
        workspace: 'bench',
        flowPath: 'f/bench/agent',
        memoryKey: `bench-${count}-${storeName}`,
        stepId: 'agent',
      };
      const doSave = async () => {
        const reply = await save.save({ ...request, mode: 'compaction', compacted: false, messages });
        if (reply.status !== 'saved' || reply.dropped)
          throw new Error(`unexpected save: ${JSON.stringify(reply)}`);
      };
      const doLoad = async () => {
        const reply = await load.load(request);
        if (reply.messages.length !== count)
          throw new Error(`loaded ${reply.messages.length} of ${count} messages`);
      };
      const write = await interleaved(plainWrite, doSave);
      const read = await interleaved(plainRead, doLoad);
      verdicts.push(report(`  ${storeName.padEnd(20)} save`, write, storeName === 's3'));
      verdicts.push(report(`  ${storeName.padEnd(20)} load`, read, storeName === 's3'));
      if (storeName === 's3') {
        // The same store beside a bare PUT/GET of the same object: what the memory layer adds to S3.
        const key = `plain/${count}.json`;
        const rawWrite = await interleaved(() => objects.put(key, JSON.stringify(messages), {}), doSave);
        const rawRead = await interleaved(async () => JSON.parse((await objects.get(key)).body), doLoad);
        report(`  ${'s3 vs bare PUT'.padEnd(20)} save`, rawWrite, true, 'bare S3');
        report(`  ${'s3 vs bare GET'.padEnd(20)} load`, rawRead, true, 'bare S3');
      }
    }
    console.log('');
  }

  const dbVerdicts = verdicts.filter((v) => !v.s3);
  console.log(
    `database store within ${TARGET}x of the plain row at every size: ${dbVerdicts.every((v) => v.ok) ? 'PASS' : 'FAIL'}`,
  );
  console.log(
    `s3 store within ${TARGET}x of the plain row at every size: ${verdicts.filter((v) => v.s3).every((v) => v.ok) ? 'PASS' : 'FAIL'} (s3rver is a JS server writing files; a real S3 is farther still)`,
  );

  objects.onApplicationShutdown();
  await s3rver.close();
  await rm(s3Dir, { recursive: true, force: true });
  await dataSource.destroy();
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
  process.exitCode = dbVerdicts.every((v) => v.ok) ? 0 : 1;
}

/** Sequential samples, alternating baseline and store, so load from anything else falls on both alike. */
async function interleaved(baseline, store) {
  for (let i = 0; i < WARMUP; i++) {
    await baseline();
    await store();
  }
  const result = { baseline: [], store: [] };
  for (let i = 0; i < SAMPLES; i++) {
    let start = performance.now();
    await baseline();
    result.baseline.push(performance.now() - start);
    start = performance.now();
    await store();
    result.store.push(performance.now() - start);
  }
  return result;
}

function report(title, samples, s3, baselineName = 'plain row') {
  const plain = summarize(samples.baseline);
  const store = summarize(samples.store);
  const ratio = store.p50 / plain.p50;
  const ok = ratio <= TARGET;
  console.log(
    `${title}  p50 ${ms(store.p50)}  p99 ${ms(store.p99)}   ${baselineName.padStart(9)} p50 ${ms(plain.p50)}  p99 ${ms(plain.p99)}   ` +
      `ratio p50 ${ratio.toFixed(2)}x, p99 ${(store.p99 / plain.p99).toFixed(2)}x  ${ok ? 'PASS' : 'FAIL'}`,
  );
  return { ok, s3 };
}

await main();
