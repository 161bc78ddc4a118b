/** Injection token of the service's parsed configuration (`ServiceConfig<Own>`). */
export const SERVICE_CONFIG = Symbol.for('flowmesh.service-config');
