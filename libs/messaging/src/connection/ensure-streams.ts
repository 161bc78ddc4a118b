import { STREAMS, type ConsumerDefinition } from '@flowmesh/contracts';
import { JetStreamApiCodes, JetStreamApiError, type ConsumerInfo, type StreamInfo } from '@nats-io/jetstream';
import type { MeshConnection } from './mesh-connection.js';
import {
  consumerConfigFor,
  consumerDrift,
  streamConfigFor,
  streamDrift,
  type StreamStorageOptions,
} from './jetstream-config.js';

export interface EnsureResult {
  name: string;
  action: 'created' | 'updated' | 'unchanged';
  /** Fields that were brought in line with the contract on update. */
  changed: string[];
}

/**
 * Creates every stream in `STREAMS`, or updates it where it drifted from the contract. Safe to
 * run from every replica at every start: an up-to-date stream is left alone, and a replica that
 * loses a creation race updates instead.
 */
export async function ensureStreams(
  conn: MeshConnection,
  options: StreamStorageOptions = {},
): Promise<EnsureResult[]> {
  const results: EnsureResult[] = [];
  for (const def of Object.values(STREAMS)) {
    const wanted = streamConfigFor(conn.space, def, options);
    results.push(
      await ensureOne(wanted.name, () => conn.jsm.streams.info(wanted.name), {
        create: () =>
          conn.jsm.streams.add(wanted).catch(async (error: unknown) => {
            throw await explainStorageRefusal(conn, wanted, error);
          }),
        drift: (info: StreamInfo) => streamDrift(info.config, wanted),
        update: () => conn.jsm.streams.update(wanted.name, wanted),
      }),
    );
  }
  return results;
}

/** Creates a durable pull consumer, or updates the fields that may change on a live one. */
export async function ensureConsumer(
  conn: MeshConnection,
  def: ConsumerDefinition,
  options: { deliverPolicy?: 'all' | 'new' } = {},
): Promise<EnsureResult> {
  const stream = conn.space.streamName(def.stream);
  const wanted = consumerConfigFor(conn.space, def, options);
  const durable = wanted.durable_name as string;
  return ensureOne(`${stream}/${durable}`, () => conn.jsm.consumers.info(stream, durable), {
    create: () => conn.jsm.consumers.add(stream, wanted),
    drift: (info: ConsumerInfo) => consumerDrift(info.config, wanted),
    update: () => conn.jsm.consumers.update(stream, durable, wanted),
  });
}

interface EnsureSteps<Info> {
  create(): Promise<Info>;
  drift(info: Info): string[];
  update(): Promise<Info>;
}

async function ensureOne<Info>(
  name: string,
  info: () => Promise<Info>,
  steps: EnsureSteps<Info>,
): Promise<EnsureResult> {
  const existing = await info().catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  if (existing === undefined) {
    try {
      await steps.create();
      return { name, action: 'created', changed: [] };
    } catch (error) {
      // Another replica created it between our lookup and our create: fall through to compare.
      const raced = await info().catch(() => undefined);
      if (raced === undefined) throw error;
      return reconcile(name, raced, steps);
    }
  }
  return reconcile(name, existing, steps);
}

async function reconcile<Info>(name: string, info: Info, steps: EnsureSteps<Info>): Promise<EnsureResult> {
  const changed = steps.drift(info);
  if (changed.length === 0) return { name, action: 'unchanged', changed };
  try {
    await steps.update();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot update ${name} (${changed.join(', ')} differ from the contract): ${reason}`, {
      cause: error,
    });
  }
  return { name, action: 'updated', changed };
}

/**
 * JetStream reserves a stream's `max_bytes` when it is created and refuses one that does not fit
 * what the server may still store. Said plainly, with what the streams already hold reserved,
 * instead of the server's bare "insufficient resources" (or a start-up that seems to hang).
 */
async function explainStorageRefusal(
  conn: MeshConnection,
  wanted: { name: string; max_bytes?: number; storage?: string },
  error: unknown,
): Promise<unknown> {
  const message = error instanceof Error ? error.message : String(error);
  if (!/insufficient .*resources/i.test(message)) return error;
  const mib = (bytes: number) => `${Math.round(bytes / MiB)} MiB`;
  let reserved = 0;
  let streams = 0;
  for await (const stream of conn.jsm.streams.list()) {
    if (stream.config.storage === wanted.storage && stream.config.max_bytes > 0) {
      reserved += stream.config.max_bytes;
      streams += 1;
    }
  }
  return new Error(
    `JetStream cannot reserve ${mib(wanted.max_bytes ?? 0)} of ${wanted.storage} storage for stream ` +
      `${wanted.name} (the server said: ${message}); ${streams} stream(s) already reserve ${mib(reserved)}. ` +
      'Free disk where the server keeps JetStream (-sd), delete streams left by earlier runs, or lower ' +
      'FLOWMESH_STREAM_MAX_BYTES',
    { cause: error },
  );
}

const MiB = 1024 * 1024;

function isNotFound(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamNotFound || error.code === JetStreamApiCodes.ConsumerNotFound)
  );
}
