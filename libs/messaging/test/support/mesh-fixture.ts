import { STREAMS, SubjectSpace } from '@flowmesh/contracts';
import {
  connectMesh,
  ensureStreams,
  MeshTransport,
  type MeshConnection,
  type MeshTransportOptions,
} from '@flowmesh/messaging';
import { TEST_STREAMS, uniqueTestId } from '@flowmesh/testing';
import { Module, type INestMicroservice, type Provider, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/**
 * One test file's own mesh on the shared NATS server: its own subject prefix, hence its own
 * streams, deleted again by `dispose()`. Connections and Nest apps opened through it are closed
 * there too.
 */
export class MeshFixture {
  readonly prefix: string;
  readonly space: SubjectSpace;
  private readonly connections: MeshConnection[] = [];
  private readonly apps: INestMicroservice[] = [];

  constructor(label: string) {
    this.prefix = uniqueTestId(label);
    this.space = new SubjectSpace(this.prefix);
  }

  static async create(label: string): Promise<MeshFixture> {
    const fixture = new MeshFixture(label);
    await ensureStreams(await fixture.connect('setup'), TEST_STREAMS);
    return fixture;
  }

  async connect(name: string): Promise<MeshConnection> {
    const conn = await connectMesh({ url: natsUrl(), name: `${this.prefix}-${name}`, prefix: this.prefix });
    this.connections.push(conn);
    return conn;
  }

  /** A Nest microservice serving `controllers` (with `providers`) through `MeshTransport` on its own connection. */
  async startApp(
    controllers: Type[],
    options: Partial<MeshTransportOptions> & { conn?: MeshConnection; providers?: Provider[] } = {},
  ): Promise<{ app: INestMicroservice; conn: MeshConnection }> {
    const { conn: given, providers = [], ...transportOptions } = options;
    const conn = given ?? (await this.connect('app'));
    @Module({ controllers, providers })
    class TestAppModule {}
    const app = await NestFactory.createMicroservice(TestAppModule, {
      strategy: new MeshTransport(conn, {
        service: 'test-service',
        shutdownGraceMs: 2_000,
        streams: TEST_STREAMS,
        ...transportOptions,
      }),
      logger: process.env.MESH_TEST_LOGS ? ['log', 'warn', 'error'] : false,
    });
    await app.listen();
    this.apps.push(app);
    return { app, conn };
  }

  /** Number of messages a stream holds now (by base name, e.g. `STREAMS.work.name`). */
  async streamMessages(base: string): Promise<number> {
    const conn = this.connections[0];
    if (!conn) throw new Error('fixture has no connection');
    const info = await conn.jsm.streams.info(this.space.streamName(base));
    return info.state.messages;
  }

  async dispose(): Promise<void> {
    for (const app of this.apps.splice(0)) await app.close().catch(() => undefined);
    const admin = await connectMesh({ url: natsUrl(), name: `${this.prefix}-cleanup`, prefix: this.prefix });
    for (const def of Object.values(STREAMS)) {
      await admin.jsm.streams.delete(this.space.streamName(def.name)).catch(() => false);
    }
    await admin.drain();
    for (const conn of this.connections.splice(0)) await conn.drain();
  }
}

export function natsUrl(): string {
  const url = process.env.NATS_URL;
  if (!url) throw new Error('NATS_URL is not set (the vitest global setup sets it)');
  return url;
}

/** A promise with its resolver, for handlers a test holds open. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
