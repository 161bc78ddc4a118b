export * from './locker.contract.js';
export * from './lockable.schema.js';
export * from './lock-pipeline.contract.js';
export * from './lock-text.js';
export * from './workspace-import.js';
