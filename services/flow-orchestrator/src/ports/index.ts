export * from './expression-sandbox.port.js';
export * from './script-runner.port.js';
