export * from './grpc-protos.js';
export * from './json-value.js';
export * from './job-watch.schema.js';
export * from './agent-event.mapping.js';
export * from './grpc-status.js';
