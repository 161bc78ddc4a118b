import { z } from 'zod';
import { ItemPathSchema, WorkspaceIdSchema } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';

/**
 * Event triggers: a listener on a broker the mesh connects to (a NATS subject or JetStream
 * consumer, an AMQP 0-9-1 queue, MQTT topics, a WebSocket, a PostgreSQL publication, Kafka topics) that turns each message into one run of a script or
 * flow. Field names are Windmill's (`NewNatsTrigger`, `NewMqttTrigger`, `NewAmqpTrigger`, ... of its
 * openapi), each kind under its own API (`/api/w/<workspace>/<kind>_triggers/...`), so a Windmill
 * trigger moves over unchanged. The connection is a resource (`<kind>_resource_path`), read through
 * the registry as the trigger's owner.
 */

/** The kinds of event trigger this mesh listens with. */
export const EVENT_TRIGGER_KINDS = ['nats', 'amqp', 'mqtt', 'websocket', 'postgres', 'kafka'] as const;
export const EventTriggerKindSchema = z.enum(EVENT_TRIGGER_KINDS);
export type EventTriggerKind = z.infer<typeof EventTriggerKindSchema>;

/** Windmill's trigger `mode`. `suspended` is not served. */
export const EventTriggerModeSchema = z.enum(['enabled', 'disabled'], {
  error: 'must be enabled or disabled (suspended is not supported)',
});
export type EventTriggerMode = z.infer<typeof EventTriggerModeSchema>;

/**
 * A filter on a message's JSON body, Windmill's (`filter.rs`): `{key, value}` (a top-level field
 * whose value contains `value`), `{path, value}` (a dotted path into nested objects), or a group
 * `{any_of | all_of | none_of: [filters]}`. A message that is not a JSON object matches no filter.
 */
export type MessageFilter =
  | { key: string; value: unknown }
  | { path: string; value: unknown }
  | { any_of: MessageFilter[] }
  | { all_of: MessageFilter[] }
  | { none_of: MessageFilter[] };

export const MessageFilterSchema: z.ZodType<MessageFilter> = z.lazy(() =>
  z.union([
    z.object({ key: z.string().min(1).max(255), value: z.unknown() }).strict(),
    z
      .object({
        path: z
          .string()
          .min(1)
          .max(1000)
          .refine((path) => path.split('.').every(Boolean), 'must not hold an empty segment'),
        value: z.unknown(),
      })
      .strict(),
    z.object({ any_of: z.array(MessageFilterSchema).max(100) }).strict(),
    z.object({ all_of: z.array(MessageFilterSchema).max(100) }).strict(),
    z.object({ none_of: z.array(MessageFilterSchema).max(100) }).strict(),
  ]),
);

const text = z.string().max(10_000).nullish();

/** Fields Windmill has that flowmesh does not serve yet: refused rather than silently ignored. */
const unsupported = (what: string) =>
  z
    .unknown()
    .refine((value) => value === undefined || value === null, { message: `${what} is not supported` })
    .optional();

/** What every kind shares (Windmill's `BaseTriggerData` and `TriggerErrorHandling`, and the filters). */
const baseFields = {
  /** The trigger's own item path (`u/<user>/...`, `f/<folder>/...`): who may see and edit it. */
  path: ItemPathSchema,
  /** The script or flow each message runs. */
  script_path: ItemPathSchema,
  is_flow: z.boolean(),
  mode: EventTriggerModeSchema.optional(),
  /** Windmill's older switch: `false` is `mode: disabled`. `mode` wins when both are given. */
  enabled: z.boolean().optional(),
  /** Only messages whose JSON body passes run anything; the others are acknowledged and dropped. */
  filters: z.array(MessageFilterSchema).max(100).nullish(),
  /** `and` (default): every filter passes; `or`: one does. */
  filter_logic: z.enum(['and', 'or']).nullish(),
  /**
   * A script run when a triggered script's run fails (Windmill's, for scripts only: the run is
   * then a one-step flow whose failure module is the handler). `script/<path>` or a bare path.
   */
  error_handler_path: z
    .string()
    .max(1000)
    .transform((value) => value.replace(/^script\//, ''))
    .pipe(ItemPathSchema)
    .nullish(),
  /** The handler's arguments beside Windmill's (`error`, `path`, `is_flow`, `trigger_path`, `workspace_id`). */
  error_handler_args: z.record(z.string(), z.unknown()).nullish(),
  /** Windmill's retry (`{constant: {attempts, seconds}, exponential: {...}}`) of a triggered script's run. */
  retry: z.record(z.string(), z.unknown()).nullish(),
  summary: text,
  description: text,
};

/** Windmill's NATS resource: `servers` (`host[:port]`, `nats://` optional), TLS and the authentication. */
export const NatsResourceSchema = z.object({
  servers: z.array(z.string().min(1).max(1000)).min(1).max(32),
  require_tls: z.boolean().nullish(),
  auth: z
    .discriminatedUnion('label', [
      z.object({ label: z.literal('NO_AUTH') }),
      z.object({ label: z.literal('TOKEN'), token: z.string().min(1) }),
      z.object({ label: z.literal('USER_PASSWORD'), user: z.string().min(1), password: z.string() }),
      z.object({ label: z.literal('NKEY'), seed: z.string().min(1) }),
      z.object({ label: z.literal('JWT'), jwt: z.string().min(1), seed: z.string().min(1) }),
    ])
    .nullish(),
});
export type NatsResource = z.infer<typeof NatsResourceSchema>;

const SUBJECT = /^[^\s]+$/;

/** `NewNatsTrigger`: core NATS on `subjects`, or a JetStream durable consumer on a stream. */
export const NewNatsTriggerSchema = z
  .object({
    ...baseFields,
    nats_resource_path: ItemPathSchema,
    use_jetstream: z.boolean(),
    /** The stream (JetStream only): it must exist. */
    stream_name: z.string().min(1).max(255).nullish(),
    /** The durable consumer (JetStream only): created on the stream when it does not exist. */
    consumer_name: z
      .string()
      .regex(/^[-\w]+$/, 'must be letters, digits, - or _')
      .max(255)
      .nullish(),
    subjects: z
      .array(z.string().min(1).max(1000).regex(SUBJECT, 'must be a NATS subject (no spaces)'))
      .min(1, 'give at least one subject')
      .max(32),
  })
  .superRefine((trigger, ctx) => {
    if (!trigger.use_jetstream) {
      if (trigger.subjects.length !== 1)
        ctx.addIssue({
          code: 'custom',
          path: ['subjects'],
          message: 'core NATS listens on exactly one subject',
        });
      return;
    }
    if (!trigger.stream_name)
      ctx.addIssue({ code: 'custom', path: ['stream_name'], message: 'is required with use_jetstream' });
    if (!trigger.consumer_name)
      ctx.addIssue({ code: 'custom', path: ['consumer_name'], message: 'is required with use_jetstream' });
  });
export type NewNatsTrigger = z.infer<typeof NewNatsTriggerSchema>;

/** Windmill's AMQP resource (its `AmqpResource`). */
export const AmqpResourceSchema = z.object({
  host: z.string().min(1).max(1000),
  port: z.number().int().min(1).max(65_535).nullish(),
  username: z.string().nullish(),
  password: z.string().nullish(),
  vhost: z.string().nullish(),
  tls: z.boolean().nullish(),
});
export type AmqpResource = z.infer<typeof AmqpResourceSchema>;

/** `NewAmqpTrigger`: a queue, declared (durable) or expected to exist, optionally bound to an exchange. */
export const NewAmqpTriggerSchema = z.object({
  ...baseFields,
  amqp_resource_path: ItemPathSchema,
  queue_name: z.string().min(1).max(255),
  exchange: z
    .object({
      exchange_name: z.string().max(255),
      routing_keys: z.array(z.string().max(255)).max(100).default([]),
    })
    .nullish(),
  options: z
    .object({
      /** Declare the queue (durable) before consuming; false: it must exist. Default true. */
      declare_queue: z.boolean().nullish(),
      /** Unacknowledged messages delivered at once (default 16). */
      prefetch_count: z.number().int().min(1).max(10_000).nullish(),
    })
    .nullish(),
});
export type NewAmqpTrigger = z.infer<typeof NewAmqpTriggerSchema>;

/** Windmill's MQTT resource. */
export const MqttResourceSchema = z.object({
  broker: z.string().min(1).max(1000),
  port: z.number().int().min(1).max(65_535),
  credentials: z.object({ username: z.string().nullish(), password: z.string().nullish() }).nullish(),
  tls: z
    .object({
      enabled: z.boolean(),
      ca_certificate: z.string().nullish(),
      pkcs12_client_certificate: z.string().nullish(),
      pkcs12_certificate_password: z.string().nullish(),
    })
    .nullish(),
});
export type MqttResource = z.infer<typeof MqttResourceSchema>;

/** `NewMqttTrigger`: topic filters with their QoS, over MQTT 5 (default) or 3.1.1. */
export const NewMqttTriggerSchema = z.object({
  ...baseFields,
  mqtt_resource_path: ItemPathSchema,
  subscribe_topics: z
    .array(
      z.object({
        topic: z.string().min(1).max(1000),
        qos: z.enum(['qos0', 'qos1', 'qos2']),
      }),
    )
    .min(1, 'give at least one topic')
    .max(100),
  /**
   * The MQTT client id, naming the session the broker keeps between connections (default: one
   * derived from the trigger). Unlike Windmill, the session persists unless `clean_session` /
   * `clean_start` is true: a message published while the listener moves is kept for it.
   */
  client_id: z.string().max(255).nullish(),
  client_version: z.enum(['v3', 'v5']).nullish(),
  v3_config: z.object({ clean_session: z.boolean().nullish() }).nullish(),
  v5_config: z
    .object({
      clean_start: z.boolean().nullish(),
      session_expiry_interval: z.number().int().min(0).nullish(),
      topic_alias_maximum: z.number().int().min(0).max(65_535).nullish(),
    })
    .nullish(),
});
export type NewMqttTrigger = z.infer<typeof NewMqttTriggerSchema>;

/**
 * `NewWebsocketTrigger`: a WebSocket URL the mesh connects to (`ws://`, `wss://`), Windmill's
 * initial messages sent once connected, and its filters on each text message.
 */
export const NewWebsocketTriggerSchema = z.object({
  ...baseFields,
  url: z
    .string()
    .max(4_000)
    .refine((url) => /^wss?:\/\/[^\s]+$/i.test(url), {
      message: 'must be a ws:// or wss:// URL ($script: and $flow: URLs are not supported)',
    }),
  initial_messages: z
    .array(
      z.union([
        z.object({ raw_message: z.string().max(1_000_000) }).strict(),
        z
          .object({ runnable_result: z.unknown() })
          .strict()
          .refine(() => false, 'runnable_result initial messages are not supported: send a raw_message'),
      ]),
    )
    .max(100)
    .nullish(),
  url_runnable_args: unsupported('url_runnable_args ($script: and $flow: URLs)'),
  can_return_message: z
    .boolean()
    .refine((value) => !value, 'can_return_message (answering on the socket) is not supported')
    .nullish(),
  can_return_error_result: z
    .boolean()
    .refine((value) => !value, 'can_return_error_result (answering on the socket) is not supported')
    .nullish(),
});
export type NewWebsocketTrigger = z.infer<typeof NewWebsocketTriggerSchema>;

/** Windmill's PostgreSQL resource: the database whose changes the trigger reads. */
export const PostgresResourceSchema = z.object({
  host: z.string().min(1).max(1000),
  port: z.number().int().min(1).max(65_535).nullish(),
  user: z.string().min(1),
  password: z.string().nullish(),
  dbname: z.string().min(1),
  sslmode: z.enum(['', 'disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']).nullish(),
  root_certificate_pem: z.string().nullish(),
});
export type PostgresResource = z.infer<typeof PostgresResourceSchema>;

const PG_NAME = z
  .string()
  .regex(/^[a-z_][a-z0-9_]*$/, 'must be lowercase letters, digits and _ (a PostgreSQL name)')
  .max(63);

/**
 * `NewPostgresTrigger`: Windmill's publication and slot model. The trigger reads the changes of
 * `publication_name` through the logical replication slot `replication_slot_name` (pgoutput);
 * with `publication`, the publication is created (on the tables given, for the operations
 * given) when it does not exist, and the slot too.
 */
export const NewPostgresTriggerSchema = z.object({
  ...baseFields,
  postgres_resource_path: ItemPathSchema,
  replication_slot_name: PG_NAME,
  publication_name: PG_NAME,
  publication: z
    .object({
      table_to_track: z
        .array(
          z.object({
            schema_name: z.string().min(1).max(63),
            table_to_track: z
              .array(
                z.object({
                  table_name: z.string().min(1).max(63),
                  columns_name: z.array(z.string().min(1).max(63)).max(1_600).nullish(),
                  where_clause: unsupported('where_clause (row filters)'),
                }),
              )
              .min(1, 'name the tables (a whole schema is not supported)')
              .max(1_000),
          }),
        )
        .max(100)
        .nullish(),
      transaction_to_track: z
        .array(
          z
            .string()
            .transform((value) => value.toLowerCase())
            .pipe(z.enum(['insert', 'update', 'delete'], { error: 'must be Insert, Update or Delete' })),
        )
        .min(1)
        .max(3),
    })
    .nullish(),
});
export type NewPostgresTrigger = z.infer<typeof NewPostgresTriggerSchema>;

/** Windmill's Kafka resource: the brokers and the security protocol. */
export const KafkaResourceSchema = z.object({
  brokers: z.array(z.string().min(1).max(1000)).min(1).max(64),
  security: z
    .discriminatedUnion('label', [
      z.object({ label: z.literal('PLAINTEXT') }),
      z.object({ label: z.literal('SSL'), ca_pem: z.string().nullish() }),
      z.object({
        label: z.enum(['SASL_PLAINTEXT', 'SASL_SSL']),
        mechanism: z
          .string()
          .transform((value) => value.toLowerCase().replaceAll('_', '-'))
          .pipe(
            z.enum(['plain', 'scram-sha-256', 'scram-sha-512'], {
              error: 'must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512',
            }),
          ),
        username: z.string().min(1),
        password: z.string(),
        ca_pem: z.string().nullish(),
      }),
    ])
    .nullish(),
});
export type KafkaResource = z.infer<typeof KafkaResourceSchema>;

/** `NewKafkaTrigger`: topics read by a consumer group. */
export const NewKafkaTriggerSchema = z.object({
  ...baseFields,
  kafka_resource_path: ItemPathSchema,
  group_id: z.string().min(1).max(255),
  topics: z.array(z.string().min(1).max(249)).min(1, 'give at least one topic').max(100),
});
export type NewKafkaTrigger = z.infer<typeof NewKafkaTriggerSchema>;

/** The schema of what `create` and `update` take, per kind. */
export const NEW_EVENT_TRIGGER_SCHEMAS = {
  nats: NewNatsTriggerSchema,
  amqp: NewAmqpTriggerSchema,
  mqtt: NewMqttTriggerSchema,
  websocket: NewWebsocketTriggerSchema,
  postgres: NewPostgresTriggerSchema,
  kafka: NewKafkaTriggerSchema,
} as const satisfies Record<EventTriggerKind, z.ZodType>;

export type NewEventTrigger =
  | NewNatsTrigger
  | NewAmqpTrigger
  | NewMqttTrigger
  | NewWebsocketTrigger
  | NewPostgresTrigger
  | NewKafkaTrigger;

/** The listener's state: `connecting`, `listening`, or `error` (retried with backoff); `disabled`. */
export const EventTriggerStateSchema = z.enum(['disabled', 'connecting', 'listening', 'error']);
export type EventTriggerState = z.infer<typeof EventTriggerStateSchema>;

/**
 * A trigger as every read answers it: Windmill's fields (the kind's own ones beside the common
 * ones, flattened as Windmill's `Trigger<T>`) and the listener's: `server_id` (the replica that
 * listens), `last_server_ping`, `error` (the last error), `error_since` and `state`.
 */
export const EventTriggerSchema = z
  .object({
    kind: EventTriggerKindSchema,
    workspace_id: z.string(),
    path: z.string(),
    script_path: z.string(),
    is_flow: z.boolean(),
    mode: EventTriggerModeSchema,
    enabled: z.boolean(),
    filters: z.array(z.unknown()),
    filter_logic: z.enum(['and', 'or']),
    error_handler_path: z.string().nullable(),
    error_handler_args: z.record(z.string(), z.unknown()).nullable(),
    retry: z.record(z.string(), z.unknown()).nullable(),
    summary: z.string().nullable(),
    description: z.string().nullable(),
    edited_by: z.string(),
    edited_at: z.string(),
    email: z.string(),
    permissioned_as: z.string(),
    extra_perms: z.record(z.string(), z.boolean()),
    server_id: z.string().nullable(),
    last_server_ping: z.string().nullable(),
    state: EventTriggerStateSchema,
    error: z.string().nullable(),
    error_since: z.string().nullable(),
  })
  .catchall(z.unknown());
export type EventTrigger = z.infer<typeof EventTriggerSchema>;

const caller = { actor: ActorSchema, workspace: WorkspaceIdSchema };

const saveRequest = <Kind extends EventTriggerKind, Trigger extends z.ZodType>(
  kind: Kind,
  trigger: Trigger,
) => z.object({ ...caller, kind: z.literal(kind), trigger }).strict();
const editRequest = <Kind extends EventTriggerKind, Trigger extends z.ZodType>(
  kind: Kind,
  trigger: Trigger,
) => z.object({ ...caller, kind: z.literal(kind), path: ItemPathSchema, trigger }).strict();

/** `create`: `trigger` is the kind's `New<Kind>Trigger`. */
export const CreateEventTriggerRequestSchema = z.discriminatedUnion('kind', [
  saveRequest('nats', NewNatsTriggerSchema),
  saveRequest('amqp', NewAmqpTriggerSchema),
  saveRequest('mqtt', NewMqttTriggerSchema),
  saveRequest('websocket', NewWebsocketTriggerSchema),
  saveRequest('postgres', NewPostgresTriggerSchema),
  saveRequest('kafka', NewKafkaTriggerSchema),
]);
export type CreateEventTriggerRequest = z.infer<typeof CreateEventTriggerRequestSchema>;

/** `update`: `path` the trigger's current path, `trigger.path` its new one (a rename when they differ). */
export const UpdateEventTriggerRequestSchema = z.discriminatedUnion('kind', [
  editRequest('nats', NewNatsTriggerSchema),
  editRequest('amqp', NewAmqpTriggerSchema),
  editRequest('mqtt', NewMqttTriggerSchema),
  editRequest('websocket', NewWebsocketTriggerSchema),
  editRequest('postgres', NewPostgresTriggerSchema),
  editRequest('kafka', NewKafkaTriggerSchema),
]);
export type UpdateEventTriggerRequest = z.infer<typeof UpdateEventTriggerRequestSchema>;

export const EventTriggerPathRequestSchema = z
  .object({ ...caller, kind: EventTriggerKindSchema, path: ItemPathSchema })
  .strict();
export type EventTriggerPathRequest = z.infer<typeof EventTriggerPathRequestSchema>;

/** Windmill's list query: `path` filters on the runnable's path, `path_start` on the trigger's. */
export const ListEventTriggersRequestSchema = z
  .object({
    ...caller,
    kind: EventTriggerKindSchema,
    path: z.string().max(255).optional(),
    is_flow: z.boolean().optional(),
    path_start: z.string().max(255).optional(),
    page: z.number().int().min(1).optional(),
    per_page: z.number().int().min(1).max(1_000).optional(),
  })
  .strict();
export type ListEventTriggersRequest = z.infer<typeof ListEventTriggersRequestSchema>;
export const ListEventTriggersReplySchema = z.object({ triggers: z.array(EventTriggerSchema) });

/** Windmill's `setmode` (`mode`) and the older `setenabled` (`enabled`): one of them. */
export const SetEventTriggerModeRequestSchema = z
  .object({
    ...caller,
    kind: EventTriggerKindSchema,
    path: ItemPathSchema,
    enabled: z.boolean().optional(),
    mode: EventTriggerModeSchema.optional(),
  })
  .strict()
  .refine((request) => request.enabled !== undefined || request.mode !== undefined, {
    message: 'give enabled (true or false) or mode (enabled or disabled)',
    path: ['mode'],
  });
export type SetEventTriggerModeRequest = z.infer<typeof SetEventTriggerModeRequestSchema>;

export const EventTriggerExistsReplySchema = z.object({ exists: z.boolean() });
export const EventTriggerDeletedReplySchema = z.object({ deleted: z.literal(true) });
