export * from './infra/test-infrastructure.js';
export * from './mesh/start-mesh.js';
export * from './mesh/test-database.js';
export * from './mesh/test-streams.js';
export * from './mesh/free-port.js';
export * from './mesh/ensure-built.js';
export * from './wait/wait-for.js';
export * from './service/start-test-service.js';
