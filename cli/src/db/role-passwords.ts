import { MESH_PROCESSES } from '@flowmesh/contracts';
import { CliConfigError } from '../cli.config.js';

/** `FLOWMESH_DB_PASSWORD_FLOW_ORCHESTRATOR` for flow-orchestrator, and so on for each process. */
export function rolePasswordVariable(processName: string): string {
  return `FLOWMESH_DB_PASSWORD_${processName.toUpperCase().replace(/-/g, '_')}`;
}

// Deployments compose each process's URL from its password without encoding it (Kubernetes
// `$(VAR)` expansion), so only characters a URL's userinfo takes as they are.
const URL_SAFE = /^[A-Za-z0-9._~-]+$/;

/** Every mesh process's role password from the environment; a missing or unusable one is named. */
export function rolePasswordsFromEnv(env: NodeJS.ProcessEnv): Map<string, string> {
  const names = MESH_PROCESSES.map((meshProcess) => meshProcess.name);
  const missing = names.map(rolePasswordVariable).filter((name) => !env[name]);
  if (missing.length > 0)
    throw new CliConfigError(`${missing.join(', ')} not set: one password per service and worker`);
  const passwords = new Map(names.map((name) => [name, env[rolePasswordVariable(name)]!]));
  for (const [name, password] of passwords) {
    if (!URL_SAFE.test(password)) {
      throw new CliConfigError(
        `${rolePasswordVariable(name)} may hold only A-Z a-z 0-9 . _ ~ - (it goes into a URL as is)`,
      );
    }
  }
  return passwords;
}
