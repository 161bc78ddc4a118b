export * from './trigger.schema.js';
export * from './job.schema.js';
export * from './jobs.schema.js';
export * from './jobs.contract.js';
export * from './job-events.contract.js';
export * from './agent-step.contract.js';
export * from './agent-stream.schema.js';
