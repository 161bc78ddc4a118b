import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SessionAdminToken {
  readonly token: string;
  /** Where a generated token was written (mode 0600); undefined when it came from FLOWMESH_ADMIN_TOKEN. */
  readonly file: string | undefined;
}

/**
 * The first admin's token for a `flowmesh start` session: FLOWMESH_ADMIN_TOKEN when set, else a
 * random one written to `.flowmesh/admin-token` for the user to read, and read back by the next
 * start (the registry takes it on a fresh database only, so a new one each time would lock a kept
 * database out). It is never printed, so it never lands in a log.
 */
export async function sessionAdminToken(env: NodeJS.ProcessEnv, workDir: string): Promise<SessionAdminToken> {
  const given = env.FLOWMESH_ADMIN_TOKEN;
  if (given) return { token: given, file: undefined };
  return keptSecret(workDir, 'admin-token', () => `fm_session_${randomBytes(32).toString('base64url')}`);
}

/**
 * The key the registry signs job tokens with (FLOWMESH_JOB_TOKEN_KEY when set): generated once
 * and kept in `.flowmesh/job-token-key`, so a registry restarted by the supervisor (or the next
 * start) still accepts the tokens of runs in flight. A key per process would fail them all.
 */
export async function sessionJobTokenKey(env: NodeJS.ProcessEnv, workDir: string): Promise<string> {
  const given = env.FLOWMESH_JOB_TOKEN_KEY;
  if (given) return given;
  return (await keptSecret(workDir, 'job-token-key', () => randomBytes(48).toString('base64url'))).token;
}

/** A secret read from `.flowmesh/<name>`, or made and written there (mode 0600) the first time. */
export async function keptSecret(
  workDir: string,
  name: string,
  make: () => string,
): Promise<SessionAdminToken> {
  const dir = join(workDir, '.flowmesh');
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  const kept = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  if (/^\S{24,256}$/.test(kept)) return { token: kept, file };
  const token = make();
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return { token, file };
}
