import {
  AmqpResourceSchema,
  MeshError,
  MqttResourceSchema,
  NatsResourceSchema,
  type EventTriggerKind,
} from '@flowmesh/contracts';
import type { z } from 'zod';

/** The resource schema of each kind's connection (Windmill's `<Kind>Resource`). */
const RESOURCE_SCHEMAS = {
  nats: NatsResourceSchema,
  amqp: AmqpResourceSchema,
  mqtt: MqttResourceSchema,
} as const satisfies Record<EventTriggerKind, z.ZodType>;

export type ConnectionResource<Kind extends EventTriggerKind> = z.output<(typeof RESOURCE_SCHEMAS)[Kind]>;

/** The field of a kind's trigger that names its connection's resource. */
export function resourceFieldOf(kind: EventTriggerKind): string {
  return `${kind}_resource_path`;
}

/**
 * The connection a resource's value describes, or VALIDATION_FAILED naming the field of the
 * resource that is wrong (never its value: it may be a secret).
 */
export function connectionOf<Kind extends EventTriggerKind>(
  kind: Kind,
  value: unknown,
): ConnectionResource<Kind> {
  const parsed = RESOURCE_SCHEMAS[kind].safeParse(value);
  if (parsed.success) return parsed.data as ConnectionResource<Kind>;
  const issues = parsed.error.issues.map((issue) => ({
    path: [resourceFieldOf(kind), ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw new MeshError(
    'VALIDATION_FAILED',
    `${resourceFieldOf(kind)}: not a ${kind} connection (${issues.map((i) => i.path).join(', ')})`,
    { issues },
  );
}
