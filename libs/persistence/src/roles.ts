// The role-provisioning part alone (pg, no TypeORM), for the CLI: `flowmesh start` and
// `flowmesh db provision-roles` load it without TypeORM's ~0.4 s of module loading.
export * from './service-roles.js';
export { describeTarget, parseDatabaseUrl, type DatabaseTarget } from './database-url.util.js';
