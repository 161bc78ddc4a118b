/** What other packages reuse from the CLI: the e2e launcher in libs/testing runs meshes with it. */
export * from './mesh/mesh-runner.js';
export * from './mesh/mesh-child.js';
export * from './mesh/wait-ready.js';
export * from './mesh/infrastructure-check.js';
export * from './mesh/log-line.formatter.js';
export * from './entry/entry-proxy.js';
export * from './status/collect-status.js';
export * from './status/query-status.js';
export * from './routes/route-table.js';
export { createProgram } from './program.js';
