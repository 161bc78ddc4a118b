export * from './chat-message.schema.js';
