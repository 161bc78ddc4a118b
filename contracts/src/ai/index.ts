export * from './chat-message.schema.js';
export * from './chat-request.schema.js';
export * from './chat-event.schema.js';
export * from './fault.js';
export * from './recording.schema.js';
