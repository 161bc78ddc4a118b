import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** Every process a job starts carries this variable, set to its worker's pid. */
export const JOB_OWNER_VARIABLE = 'FLOWMESH_JOB_OWNER';

/**
 * The watchdog: waits for the end of its input, which comes when the worker exits or is killed
 * (the kernel closes the worker's end of the pipe), then SIGKILLs every process whose environment
 * names the worker as its owner, with its process group. Nothing is sent to it per job, so a
 * worker killed the moment a job started leaves nothing behind either. Plain `sh` over `/proc`.
 */
const WATCHDOG = `
trap '' INT TERM HUP
cat > /dev/null
for dir in /proc/[0-9]*; do
  if tr '\\0' '\\n' < "$dir/environ" 2>/dev/null | grep -qx "$0=$1"; then
    pid=\${dir#/proc/}
    pgid=$(cut -d')' -f2 "$dir/stat" 2>/dev/null | cut -d' ' -f4)
    [ -n "$pgid" ] && [ "$pgid" != "0" ] && kill -9 "-$pgid" 2>/dev/null
    kill -9 "$pid" 2>/dev/null
  fi
done
`;

let watchdog: ChildProcess | undefined;

/**
 * The environment a job's process gets on top of its own: the worker's mark, which the worker's
 * watchdog (started here, once per worker) looks for when the worker dies, so nothing a step
 * started outlives its worker, even one killed with SIGKILL.
 */
export function jobOwnerEnv(): Record<string, string> {
  if (!watchdog || watchdog.exitCode !== null) {
    try {
      const child = spawn('/bin/sh', ['-c', WATCHDOG, JOB_OWNER_VARIABLE, String(process.pid)], {
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      child.on('error', () => undefined);
      child.stdin?.on('error', () => undefined);
      // It must never keep the worker alive, nor be waited for.
      child.unref();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      watchdog = child;
    } catch {
      // Without a watchdog a job still runs; only a crash of the worker could leave it behind.
    }
  }
  return { [JOB_OWNER_VARIABLE]: String(process.pid) };
}

/**
 * `setpriv` (util-linux) where the system has it. A job's process started through it asks the
 * kernel to SIGKILL it the moment its parent, the worker, dies (PR_SET_PDEATHSIG): at once, where
 * the watchdog's walk over `/proc` took a loaded machine hundreds of milliseconds, during which a
 * dead worker's scripts went on writing. The watchdog still reaps what a job's process started.
 */
export const PARENT_DEATH_LAUNCHER: string | null =
  ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }) ?? null;

/** `command` started so that it dies with its parent (as it is, without a launcher). */
export function dyingWithParent(
  command: string,
  args: readonly string[],
  launcher: string | null = PARENT_DEATH_LAUNCHER,
): { command: string; args: readonly string[] } {
  return launcher
    ? { command: launcher, args: ['--pdeathsig', 'KILL', '--', command, ...args] }
    : { command, args };
}
