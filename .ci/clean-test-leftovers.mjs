// Clears what a test run killed midway (kill -9 of vitest) leaves behind, so the next run starts
// clean: mesh processes it had started (they carry FLOWMESH_TEST_RUN in their environment),
// JetStream streams of test prefixes, and databases named by tests (`fmt_...`) with their roles. The default `fm`
// prefix and every other database are kept. Run only where no other test run shares the servers.
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';

const TEST_MARK = /^fmt_[a-z0-9]{1,12}[0-9a-f]{8}$/;

function killLeftoverProcesses() {
  let killed = 0;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || pid === process.ppid) continue;
    let environ;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (!environ.split('\0').some((pair) => pair.startsWith('FLOWMESH_TEST_RUN='))) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed += 1;
    } catch {
      // exited meanwhile
    }
  }
  return killed;
}

async function deleteTestStreams() {
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  try {
    const jsm = await jetstreamManager(nc);
    const leftovers = [];
    for await (const stream of jsm.streams.list()) {
      if (!stream.config.name.startsWith('FM_')) leftovers.push(stream.config.name);
    }
    for (const name of leftovers) await jsm.streams.delete(name);
    return leftovers.length;
  } finally {
    await nc.drain();
  }
}

async function dropTestDatabases() {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT datname FROM pg_database');
    const leftovers = rows.map((row) => row.datname).filter((name) => TEST_MARK.test(name));
    for (const name of leftovers) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    const schemas = await client.query('SELECT nspname FROM pg_namespace');
    const leftoverSchemas = schemas.rows.map((row) => row.nspname).filter((name) => TEST_MARK.test(name));
    for (const name of leftoverSchemas) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    // Roles `flowmesh start` made for a test database (`<database>_<schema>`), once it is gone.
    const roles = await client.query('SELECT rolname FROM pg_roles');
    const leftoverRoles = roles.rows
      .map((row) => row.rolname)
      .filter((name) => TEST_MARK.test(name.split('_').slice(0, 2).join('_')) && name.split('_').length > 2);
    for (const name of leftoverRoles) await client.query(`DROP ROLE IF EXISTS "${name}"`);
    return leftovers.length + leftoverSchemas.length + leftoverRoles.length;
  } finally {
    await client.end();
  }
}

const processes = killLeftoverProcesses();
const streams = await deleteTestStreams();
const databases = await dropTestDatabases();
console.log(
  `left by earlier test runs: ${processes} process(es) killed, ${streams} stream(s) and ` +
    `${databases} database(s), schema(s) or role(s) removed`,
);
