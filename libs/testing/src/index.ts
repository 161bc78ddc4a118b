export * from './infra/test-infrastructure.js';
export * from './wait/wait-for.js';
