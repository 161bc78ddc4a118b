export * from './memory.schema.js';
export * from './conversation.schema.js';
export * from './memory.contract.js';
export * from './history-window.js';
export * from './memory-lock.schema.js';
