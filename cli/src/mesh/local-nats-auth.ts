import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MESH_OPERATOR_USER, meshNatsUsers } from '@flowmesh/contracts';
import {
  generateNatsPassword,
  meshNatsCredentials,
  natsAuthorizationBlock,
  natsUrlWithCredentials,
} from '@flowmesh/messaging/nats-auth';

/** The NATS users of a local mesh: the server's configuration and each user's URL. */
export interface LocalNatsAuth {
  /** nats-server's configuration: the users and their permissions (mode 0600). */
  readonly configFile: string;
  /** `nats://<user>:<password>@host:port` for one user (a process name, or `flowmesh-cli`). */
  urlOf(user: string): string;
}

/** Where `flowmesh start` keeps its NATS users: `.flowmesh/nats-auth/`. */
export function localNatsAuthDir(workDir: string): string {
  return join(workDir, '.flowmesh', 'nats-auth');
}

/**
 * Writes the configuration of a local nats-server that admits only the mesh's users, each with
 * the permissions its service's contracts give it. A password is made once per user and kept in
 * `<user>.password` (mode 0600), so a process restarted by the supervisor, or the next start,
 * finds the same; the configuration is written anew each time, so it follows the code. The CLI's
 * own URL is kept in `flowmesh-cli.url` for `flowmesh status` and `admin init` in another shell.
 */
export async function prepareLocalNatsAuth(options: {
  readonly workDir: string;
  readonly prefix: string;
  readonly host: string;
  readonly port: number;
}): Promise<LocalNatsAuth> {
  const dir = localNatsAuthDir(options.workDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const passwords = new Map<string, string>();
  for (const { user } of meshNatsUsers(options.prefix)) {
    passwords.set(user, await keptOrNewPassword(join(dir, `${user}.password`)));
  }
  const users = meshNatsCredentials(options.prefix, (user) => passwords.get(user) ?? '');
  const server = `nats://${options.host}:${options.port}`;
  const urlOf = (user: string): string => {
    const password = passwords.get(user);
    if (password === undefined) throw new Error(`no NATS user ${user} in this mesh`);
    return natsUrlWithCredentials(server, user, password);
  };
  const configFile = join(dir, 'nats.conf');
  await writeSecret(configFile, natsAuthorizationBlock(users));
  await writeSecret(join(dir, `${MESH_OPERATOR_USER}.url`), urlOf(MESH_OPERATOR_USER));
  return { configFile, urlOf };
}

/** The CLI's URL a running `flowmesh start` left in `workDir`, if any. */
export async function keptOperatorNatsUrl(workDir: string): Promise<string | undefined> {
  const text = await readFile(join(localNatsAuthDir(workDir), `${MESH_OPERATOR_USER}.url`), 'utf8').catch(
    () => '',
  );
  return text.trim() || undefined;
}

async function keptOrNewPassword(file: string): Promise<string> {
  const kept = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  if (/^[A-Za-z0-9_-]{32,}$/.test(kept)) return kept;
  const password = generateNatsPassword();
  await writeSecret(file, password);
  return password;
}

async function writeSecret(file: string, text: string): Promise<void> {
  await writeFile(file, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600 });
  // writeFile's mode applies only to a new file; an older one may have been made wider.
  await chmod(file, 0o600);
}

/**
 * The NATS a CLI command talks to: NATS_URL when set, else the one a `flowmesh start` in this
 * directory runs (with the CLI's credentials), else the default.
 */
export async function cliNatsUrl(
  settings: { readonly natsUrl: string; readonly natsUrlGiven: boolean },
  workDir: string,
): Promise<string> {
  if (settings.natsUrlGiven) return settings.natsUrl;
  return (await keptOperatorNatsUrl(workDir)) ?? settings.natsUrl;
}
