import { readFileSync } from 'node:fs';
import { dyingWithParent, PARENT_DEATH_LAUNCHER } from '../process/orphan-reaper.js';

/** `host`: scripts use the machine's network; `none`: a network namespace of their own, with nothing in it. */
export type SandboxNetwork = 'host' | 'none';

export interface SandboxUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/**
 * Where user code runs: as an unprivileged user (when the worker is root and can switch to one),
 * so it cannot read the worker's environment (`/proc/<pid>/environ` is its owner's), its files,
 * or the mesh's credentials; and with the network chosen. Its environment is always its own
 * (`process-env.ts`).
 */
export interface ScriptSandbox {
  /** Absent: scripts run as the worker's own user (the worker is not root, or it was asked to). */
  readonly user?: SandboxUser;
  readonly network: SandboxNetwork;
}

export const NO_SANDBOX: ScriptSandbox = { network: 'host' };

/**
 * The sandbox from the settings: `user` is a name in `/etc/passwd`, `uid` or `uid:gid`, or `off`
 * for the worker's own user. A worker that is not root cannot switch users: its scripts run as
 * itself (`warnings` says so).
 */
export function resolveScriptSandbox(
  user: string,
  network: SandboxNetwork,
  workerUid: number | undefined = process.getuid?.(),
  passwd: () => string = () => readFileSync('/etc/passwd', 'utf8'),
): { sandbox: ScriptSandbox; warnings: string[] } {
  const warnings: string[] = [];
  const name = user.trim();
  if (name === 'off') {
    warnings.push(
      "FLOWMESH_SANDBOX_USER is off: scripts run as the worker's own user and can read its environment",
    );
    return { sandbox: { network }, warnings };
  }
  if (workerUid !== 0) {
    warnings.push(
      `the worker is not root, so scripts cannot run as ${name}: they run as the worker's own user and can read its environment (run the worker as root, or give it CAP_SETUID and CAP_SETGID)`,
    );
    return { sandbox: { network }, warnings };
  }
  return { sandbox: { user: lookUpUser(name, passwd), network }, warnings };
}

function lookUpUser(name: string, passwd: () => string): SandboxUser {
  const numeric = /^(\d+)(?::(\d+))?$/.exec(name);
  let found: SandboxUser | undefined;
  if (numeric) {
    const uid = Number(numeric[1]);
    found = { name, uid, gid: numeric[2] !== undefined ? Number(numeric[2]) : uid };
  } else {
    for (const line of passwd().split('\n')) {
      const [entry, , uid, gid] = line.split(':');
      if (entry === name && uid !== undefined && gid !== undefined) {
        found = { name, uid: Number(uid), gid: Number(gid) };
        break;
      }
    }
  }
  if (!found) throw new Error(`FLOWMESH_SANDBOX_USER: no user named "${name}" in /etc/passwd`);
  if (found.uid === 0 || found.gid === 0)
    throw new Error(`FLOWMESH_SANDBOX_USER: "${name}" is root; scripts must run as an unprivileged user`);
  return found;
}

export interface SandboxLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** For `spawn`: the user to switch to (Node drops the supplementary groups too). */
  readonly uid?: number;
  readonly gid?: number;
}

/**
 * How to start `command` inside the sandbox: as its user, and in a network namespace of its own
 * when the network is `none` (`unshare`, which then switches to the user itself); killed by the
 * kernel when the worker dies (`launcher`, run last: a change of user clears that setting).
 */
export function sandboxLaunch(
  sandbox: ScriptSandbox,
  command: string,
  args: readonly string[],
  launcher: string | null = PARENT_DEATH_LAUNCHER,
): SandboxLaunch {
  const { user } = sandbox;
  const dying = dyingWithParent(command, args, launcher);
  if (sandbox.network === 'none') {
    const identity = user
      ? ['--setuid', String(user.uid), '--setgid', String(user.gid)]
      : ['--user', '--map-current-user'];
    return { command: 'unshare', args: ['--net', ...identity, '--', dying.command, ...dying.args] };
  }
  return { ...dying, ...(user ? { uid: user.uid, gid: user.gid } : {}) };
}
