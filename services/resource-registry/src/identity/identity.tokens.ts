/** Injection tokens of the identity module. */
export const IDENTITY_CONFIG = Symbol.for('flowmesh.registry.identity-config');
export const IDENTITY_LOGGER = Symbol.for('flowmesh.registry.identity-logger');
