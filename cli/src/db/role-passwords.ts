import { SERVICE_NAMES, type ServiceName } from '@flowmesh/contracts';
import { CliConfigError } from '../cli.config.js';

/** `FLOWMESH_DB_PASSWORD_FLOW_ORCHESTRATOR` for flow-orchestrator, and so on. */
export function rolePasswordVariable(service: ServiceName): string {
  return `FLOWMESH_DB_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`;
}

// Deployments compose each service's URL from its password without encoding it (Kubernetes
// `$(VAR)` expansion), so only characters a URL's userinfo takes as they are.
const URL_SAFE = /^[A-Za-z0-9._~-]+$/;

/** Every service's role password from the environment; a missing or unusable one is named. */
export function rolePasswordsFromEnv(env: NodeJS.ProcessEnv): Map<ServiceName, string> {
  const missing = SERVICE_NAMES.map(rolePasswordVariable).filter((name) => !env[name]);
  if (missing.length > 0) throw new CliConfigError(`${missing.join(', ')} not set: one password per service`);
  const passwords = new Map(SERVICE_NAMES.map((service) => [service, env[rolePasswordVariable(service)]!]));
  for (const [service, password] of passwords) {
    if (!URL_SAFE.test(password)) {
      throw new CliConfigError(
        `${rolePasswordVariable(service)} may hold only A-Z a-z 0-9 . _ ~ - (it goes into a URL as is)`,
      );
    }
  }
  return passwords;
}
