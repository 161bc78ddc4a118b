export * from './errors.js';
export * from './messaging/subject-prefix.js';
export * from './messaging/streams.js';
export * from './messaging/contract.js';
export * from './services/service-names.js';
export * from './services/ping.contract.js';
export * from './services/mesh-processes.js';
export * from './http/routes.js';
