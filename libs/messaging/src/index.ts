export {
  connectMesh,
  type MeshConnection,
  type MeshConnectionOptions,
} from './connection/mesh-connection.js';
export {
  ConnectionOutages,
  type OutageLog,
  type ReconnectListener,
} from './connection/connection-outages.js';
export { ensureConsumer, ensureStreams, type EnsureResult } from './connection/ensure-streams.js';
export {
  consumerConfigFor,
  streamConfigFor,
  type StreamStorageOptions,
} from './connection/jetstream-config.js';
export {
  MeshClient,
  type PublishOptions,
  type PublishResult,
  type RequestOptions,
} from './client/mesh-client.js';
export { MeshTransport, consumerDefinitions, type MeshTransportOptions } from './server/mesh-transport.js';
export {
  HandleEvent,
  HandleRequest,
  HandleWork,
  type HandleEventOptions,
  type HandleWorkOptions,
} from './server/mesh-handler.decorators.js';
export { MeshContext, type MeshMessageInfo } from './server/mesh-context.js';
export {
  MESH_AUTHENTICATOR,
  MeshCaller,
  MeshCallerPipe,
  type MeshAuthenticator,
} from './server/mesh-caller.decorator.js';
export { HandBackError } from './server/hand-back.error.js';
export type {
  EventBinding,
  MeshBinding,
  RequestBinding,
  WorkBinding,
} from './server/mesh-handler.binding.js';
export { MessagingModule, type MessagingModuleAsyncOptions } from './nest/messaging.module.js';
export { InjectMeshConnection, MESH_CONNECTION } from './nest/messaging.tokens.js';
export { FollowEvent, type FollowEventOptions } from './nest/follow-event.decorator.js';
export { OutboxMessageEntity } from './outbox/outbox-message.entity.js';
export { CreateOutbox1700000000000 } from './outbox/create-outbox.migration.js';
export { writeToOutbox, type OutboxWriteOptions, type OutboxWriteResult } from './outbox/write-to-outbox.js';
export { OutboxRelay, type OutboxRelayOptions } from './outbox/outbox.relay.js';
export { outboxTablePath } from './outbox/outbox-table.util.js';
export { captureTraceHeaders } from './tracing/message-tracing.js';
export { listenToEvent } from './client/listen-to-event.js';
export { isNoReply } from './client/safe-retry.policy.js';
export {
  generateNatsPassword,
  meshNatsCredentials,
  natsAuthorizationBlock,
  natsUrlWithCredentials,
  type MeshNatsUser,
} from './auth/nats-server-authorization.js';
