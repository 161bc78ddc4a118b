export * from './semconv.js';
