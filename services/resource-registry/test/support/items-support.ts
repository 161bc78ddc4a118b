import { Writable } from 'node:stream';
import {
  createRegistryItemsClient,
  MeshError,
  type ItemChangedEvent,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import type { MeshConnection } from '@flowmesh/messaging';
import type { Actor, RegistryCast } from './registry-cast.js';

/** The items client of a cast's registry, and the request base for an actor. */
export function itemsClient(cast: RegistryCast): RegistryItemsClient {
  return createRegistryItemsClient(cast.service.client);
}

export function as(cast: RegistryCast, actor: Actor) {
  return { actor: { token: actor.token }, workspace: cast.workspace };
}

export async function errorOf(action: () => Promise<unknown>): Promise<MeshError> {
  const error = await action().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof MeshError)) throw new Error(`expected a MeshError, got ${String(error)}`);
  return error;
}

/** Every JSON log line the service writes, kept for a test to grep. */
export class CapturedLog extends Writable {
  readonly lines: string[] = [];

  override _write(
    chunk: Buffer | string,
    _encoding: BufferEncoding,
    done: (error?: Error | null) => void,
  ): void {
    this.lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  }

  containing(text: string): string[] {
    return this.lines.filter((line) => line.includes(text));
  }
}

/**
 * Item events as published on the cast's events subjects (`<prefix>.evt.<kind>.<change>`),
 * in arrival order.
 */
export class EventTap {
  readonly events: ItemChangedEvent[] = [];
  private readonly subscription: ReturnType<MeshConnection['nc']['subscribe']>;

  constructor(cast: RegistryCast) {
    const conn = cast.service.conn;
    this.subscription = conn.nc.subscribe(conn.space.subject('evt.>'), {
      callback: (error, message) => {
        if (!error) this.events.push(message.json<ItemChangedEvent>());
      },
    });
  }

  of(path: string): ItemChangedEvent[] {
    return this.events.filter((event) => event.path === path || event.previous_path === path);
  }

  stop(): void {
    this.subscription.unsubscribe();
  }
}

/** Rows of a registry table (raw, as Postgres holds them). */
export async function rowsOf(cast: RegistryCast, table: string): Promise<Array<Record<string, unknown>>> {
  return cast.dataSource.query<Array<Record<string, unknown>>>(`SELECT * FROM "${table}"`);
}

export async function countOf(cast: RegistryCast, table: string): Promise<number> {
  const [row] = await cast.dataSource.query<Array<{ n: number }>>(
    `SELECT count(*)::int AS n FROM "${table}"`,
  );
  return row?.n ?? 0;
}

/** A raw HTTP call whose answer is text (Windmill's create routes answer the path as text). */
export async function httpText(
  cast: RegistryCast,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; text: string; contentType: string | null }> {
  const response = await fetch(`${cast.service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    text: await response.text(),
    contentType: response.headers.get('content-type'),
  };
}
