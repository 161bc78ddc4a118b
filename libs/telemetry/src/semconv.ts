/**
 * OpenTelemetry semantic-convention keys the mesh uses, in one file. The messaging keys are
 * still "incubating" upstream, and the semconv package advises copying incubating constants
 * rather than importing `/incubating` at runtime, so they live here. `messaging.system` has no
 * well-known value for NATS, hence the custom `nats`.
 */
export const MESSAGING_SYSTEM = 'nats';

export const ATTR_MESSAGING_SYSTEM = 'messaging.system';
/** The concrete subject a message was sent to or received from. */
export const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
/** The subject pattern a handler is bound to (contract subject, wildcard or filter). */
export const ATTR_MESSAGING_DESTINATION_TEMPLATE = 'messaging.destination.template';
/** `send`, `publish`, `receive`, `process` or `settle`. */
export const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
export const ATTR_MESSAGING_OPERATION_NAME = 'messaging.operation.name';
/** Queue group (core NATS) or durable consumer name (JetStream). */
export const ATTR_MESSAGING_CONSUMER_GROUP_NAME = 'messaging.consumer.group.name';
/** The `Nats-Msg-Id` of a JetStream publish. */
export const ATTR_MESSAGING_MESSAGE_ID = 'messaging.message.id';
export const ATTR_MESSAGING_MESSAGE_BODY_SIZE = 'messaging.message.body.size';
export const ATTR_SERVER_ADDRESS = 'server.address';
export const ATTR_SERVER_PORT = 'server.port';
export const ATTR_ERROR_TYPE = 'error.type';
/** Beside `error.type` on a failed span: whose fault it is, `user` or `internal` (`classifyFault`). */
export const ATTR_FLOWMESH_FAULT = 'flowmesh.fault';

/** NATS-specific extras (not in semconv), named like nestjs-jetstream's. */
export const ATTR_MESSAGING_NATS_STREAM_NAME = 'messaging.nats.stream.name';
export const ATTR_MESSAGING_NATS_STREAM_SEQUENCE = 'messaging.nats.message.stream_sequence';
export const ATTR_MESSAGING_NATS_DELIVERY_COUNT = 'messaging.nats.message.delivery_count';

export const MESSAGING_OPERATION_TYPE = {
  send: 'send',
  publish: 'publish',
  receive: 'receive',
  process: 'process',
  settle: 'settle',
} as const;
export type MessagingOperationType = (typeof MESSAGING_OPERATION_TYPE)[keyof typeof MESSAGING_OPERATION_TYPE];
