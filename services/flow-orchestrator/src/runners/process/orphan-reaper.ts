import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The watchdog: reads `+<pgid>` / `-<pgid>` lines while the worker lives; at end of input (the
 * worker exited, or was killed: the kernel closes its end of the pipe) it SIGKILLs every group
 * still listed, then exits. Plain `sh`, so it costs one small process per worker.
 */
const WATCHDOG = `
trap '' INT TERM HUP
groups=""
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups \${line#+}" ;;
    -*) kept=""; for g in $groups; do [ "$g" = "\${line#-}" ] || kept="$kept $g"; done; groups=$kept ;;
  esac
done
for g in $groups; do kill -9 "-$g" 2>/dev/null; done
`;

let watchdog: ChildProcess | undefined;

function ensureWatchdog(): ChildProcess | undefined {
  if (watchdog && watchdog.exitCode === null && watchdog.stdin?.writable) return watchdog;
  try {
    const child = spawn('/bin/sh', ['-c', WATCHDOG], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', () => undefined);
    child.stdin?.on('error', () => undefined);
    // It must never keep the worker alive, nor be waited for.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    watchdog = child;
    return child;
  } catch {
    return undefined;
  }
}

/**
 * Hands a job's process group to the worker's watchdog, so that nothing a step started outlives
 * the worker by more than the moment the kernel takes to close a pipe, even after SIGKILL; the
 * returned function takes it back once the job's processes are gone.
 */
export function guardProcessGroup(pgid: number): () => void {
  const dog = ensureWatchdog();
  dog?.stdin?.write(`+${pgid}\n`);
  return () => {
    if (dog && dog === watchdog) dog.stdin?.write(`-${pgid}\n`);
  };
}
