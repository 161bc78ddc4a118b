// Deletes JetStream streams left behind by earlier test runs on this NATS server (a test killed
// mid-run never reaches its cleanup). Each test prefix reserves its streams' max bytes, so
// leftovers would exhaust JetStream storage. Streams of the default `fm` prefix are kept.
// Run only where no other test run shares the server (CI).
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const jsm = await jetstreamManager(nc);
const leftovers = [];
for await (const stream of jsm.streams.list()) {
  if (!stream.config.name.startsWith('FM_')) leftovers.push(stream.config.name);
}
for (const name of leftovers) await jsm.streams.delete(name);
console.log(`deleted ${leftovers.length} leftover test stream(s)`);
await nc.drain();
