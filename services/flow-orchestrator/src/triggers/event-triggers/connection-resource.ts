import {
  AmqpResourceSchema,
  KafkaResourceSchema,
  MeshError,
  MqttResourceSchema,
  NatsResourceSchema,
  PostgresResourceSchema,
  type EventTriggerKind,
} from '@flowmesh/contracts';
import type { z } from 'zod';

/**
 * The resource schema of each kind's connection (Windmill's `<Kind>Resource`); a WebSocket
 * trigger has none (its `url` is the connection).
 */
const RESOURCE_SCHEMAS = {
  nats: NatsResourceSchema,
  amqp: AmqpResourceSchema,
  mqtt: MqttResourceSchema,
  postgres: PostgresResourceSchema,
  kafka: KafkaResourceSchema,
} as const satisfies Partial<Record<EventTriggerKind, z.ZodType>>;

type KindWithResource = keyof typeof RESOURCE_SCHEMAS;

export type ConnectionResource<Kind extends KindWithResource> = z.output<(typeof RESOURCE_SCHEMAS)[Kind]>;

/** The field of a kind's trigger that names its connection's resource; undefined for a kind without one. */
export function resourceFieldOf(kind: EventTriggerKind): string | undefined {
  return kind in RESOURCE_SCHEMAS ? `${kind}_resource_path` : undefined;
}

/**
 * The connection a resource's value describes, or VALIDATION_FAILED naming the field of the
 * resource that is wrong (never its value: it may be a secret).
 */
export function connectionOf(kind: EventTriggerKind, value: unknown): unknown {
  if (!(kind in RESOURCE_SCHEMAS)) return null;
  const field = `${kind}_resource_path`;
  const parsed = RESOURCE_SCHEMAS[kind as KindWithResource].safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({
    path: [field, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw new MeshError(
    'VALIDATION_FAILED',
    `${field}: not a ${kind} connection (${issues.map((i) => i.path).join(', ')})`,
    { issues },
  );
}
