export * from './infra/test-infrastructure.js';
