import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, lstat, mkdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { SandboxUser } from './script-sandbox.js';

/**
 * Uids are claimed by workers in blocks of this many, aligned (block `n` is uids `16n` to
 * `16n + 15`, its lock file is named `n`), so workers given different ranges still agree.
 */
export const UID_BLOCK = 16;

export interface UidRange {
  readonly first: number;
  readonly last: number;
}

/**
 * `FLOWMESH_SANDBOX_UIDS`: `first-last`, uids that belong to nothing else on the machine (a
 * worker kills every process of a uid it takes back), or `off`. A range holding a user of
 * `/etc/passwd`, root, or fewer than a block is refused, naming the reason.
 */
export function parseUidRange(text: string, passwd: string): UidRange | 'off' {
  const value = text.trim();
  if (value === 'off') return 'off';
  const match = /^(\d+)-(\d+)$/.exec(value);
  if (!match) throw new Error(`FLOWMESH_SANDBOX_UIDS: "${value}" is not a range first-last (or off)`);
  const [first, last] = [Number(match[1]), Number(match[2])];
  if (first < 1000 || last > 2_147_483_646)
    throw new Error(`FLOWMESH_SANDBOX_UIDS: ${value} must lie within 1000-2147483646`);
  if (Math.floor((last + 1) / UID_BLOCK) <= Math.ceil(first / UID_BLOCK))
    throw new Error(
      `FLOWMESH_SANDBOX_UIDS: ${value} holds no ${UID_BLOCK} uids from a multiple of ${UID_BLOCK}`,
    );
  for (const line of passwd.split('\n')) {
    const [name, , uid] = line.split(':');
    if (uid === undefined || !/^\d+$/.test(uid)) continue;
    if (Number(uid) >= first && Number(uid) <= last)
      throw new Error(
        `FLOWMESH_SANDBOX_UIDS: ${value} holds uid ${uid} (user ${name} of /etc/passwd); its uids must belong to nothing else, since a worker kills every process of a uid it takes back`,
      );
  }
  return { first, last };
}

/**
 * The keeper, one `bash` per worker: claims blocks of uids by `flock` on a file per block (held
 * as long as it lives, which is as long as the worker: it ends at the end of its input), kills
 * whatever a dead worker left under them, prints them, then kills every process of each uid it is
 * sent (`kill -9 -1` as that uid, again until none is left), answering `reaped <uid>`. When the
 * worker is gone it kills every process of all its uids and exits, letting the blocks go. The
 * kill runs only as the uid (setpriv sets the real, effective and saved uid; the shell checks all
 * three before it kills): `kill -1` as root would end the machine's every process.
 */
const KEEPER = `
set -u
dir=$0 from=$1 to=$2 need=$3 size=$4
trap '' INT TERM HUP
reap() {
  setpriv --reuid="$1" --regid="$1" --clear-groups -- /bin/sh -c '
    while read -r key real effective saved rest; do
      [ "$key" = Uid: ] || continue
      [ "$real" = "$0" ] && [ "$effective" = "$0" ] && [ "$saved" = "$0" ] && [ "$0" != 0 ] || exit 9
      checked=1
    done < /proc/self/status
    [ "\${checked:-}" = 1 ] || exit 9
    n=0; while kill -9 -1 2>/dev/null && [ $n -lt 1000 ]; do n=$((n + 1)); done' "$1"
}
# The uids of these blocks that some process runs as (one pass over /proc), each killed clean.
reap_all() {
  awk -v blocks="\${claimed[*]}" -v size="$size" '
    BEGIN { n = split(blocks, list, " "); for (i = 1; i <= n; i++) mine[list[i]] = 1 }
    $1 == "Uid:" { for (i = 2; i <= 5; i++) { k = int($i / size); if (k in mine) print $i } }' \\
    /proc/[0-9]*/status 2>/dev/null | sort -un | while read -r uid; do reap "$uid"; done
}
claimed=()
for ((i = from; i < to && \${#claimed[@]} < need; i++)); do
  exec {fd}>"$dir/$i"
  if flock -n "$fd"; then claimed+=("$i"); else exec {fd}>&-; fi
done
if ((\${#claimed[@]} < need)); then echo "full \${#claimed[@]}"; exit 3; fi
reap_all
echo "blocks \${claimed[*]}"
while read -r uid; do
  if reap "$uid"; then echo "reaped $uid"; else echo "failed $uid"; fi
done
reap_all
`;

export interface UidLease {
  readonly user: SandboxUser;
  /**
   * The uid held this lease's key (`workdirKey`) last and nobody had it since: what the key's
   * earlier jobs left is its own already.
   */
  readonly resumed: boolean;
  /**
   * Gives the uid back. The last holder of a uid (a key's jobs share one) has every process of
   * it killed, then `cleanup(true)` runs, then the uid is free; others run `cleanup(false)`.
   */
  release(cleanup?: (last: boolean) => Promise<void>): Promise<void>;
}

interface Held {
  readonly uid: number;
  count: number;
}

interface Waiter {
  readonly key: string | undefined;
  readonly resolve: (lease: UidLease) => void;
  readonly reject: (error: Error) => void;
}

export interface SandboxUidsOptions {
  readonly range: UidRange;
  /** Process jobs at once (one uid each); one more uid is the thread sandbox's. */
  readonly jobs: number;
  /** Where the blocks' lock files are: one directory for every worker of the machine, root's own. */
  readonly lockDir: string;
}

/**
 * Uids of one worker's scripts, a uid per concurrent process job (bash, python3, TypeScript
 * processes) and one for the thread sandbox, none shared with another worker of the machine
 * (`KEEPER`). A job's uid is killed clean (every process of it) before any other job gets it, so
 * no job can read another's environment (`/proc/<pid>/environ`, where its token is), signal its
 * processes or enter its directory, and nothing of a job outlives it under a uid another gets.
 * The jobs of one `workdirKey` (a `same_worker` run's steps, which share `./shared`) share a uid
 * while any of them runs, and get the same one back when it is still free.
 */
export class SandboxUids {
  private readonly free: number[];
  private readonly lastKey = new Map<number, string | undefined>();
  private readonly held = new Map<string, Held>();
  private readonly releasing = new Map<string, Promise<void>>();
  private readonly waiters: Waiter[] = [];
  private readonly replies: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  private broken?: Error;

  private constructor(
    private readonly keeper: ChildProcess,
    /** The thread sandbox's uid: no process job ever gets it. */
    readonly sandboxUser: SandboxUser,
    uids: readonly number[],
  ) {
    this.free = [...uids];
  }

  /** Claims `jobs + 1` uids of the range for this worker; rejects, naming why, when it cannot. */
  static async claim(options: SandboxUidsOptions): Promise<SandboxUids> {
    const { range, jobs, lockDir } = options;
    await privateDirectory(lockDir);
    const from = Math.ceil(range.first / UID_BLOCK);
    const to = Math.floor((range.last + 1) / UID_BLOCK);
    const need = Math.ceil((jobs + 1) / UID_BLOCK);
    const keeper = spawn(
      '/bin/bash',
      ['-c', KEEPER, lockDir, String(from), String(to), String(need), String(UID_BLOCK)],
      // Its own group, no variable of the worker, no mark of its jobs (the watchdog spares it).
      { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' } },
    );
    keeper.stdin.on('error', () => undefined);
    const errors: string[] = [];
    keeper.stderr.setEncoding('utf8').on('data', (chunk: string) => errors.push(chunk));
    const lines = createInterface({ input: keeper.stdout });
    const first = await new Promise<string>((resolve, reject) => {
      keeper.once('error', (error) => reject(error));
      lines.once('line', resolve);
      keeper.once('exit', () => setImmediate(() => reject(new Error(errors.join('').trim() || 'it exited'))));
    }).catch((error: Error) => {
      throw new Error(`FLOWMESH_SANDBOX_UIDS: the uid keeper could not start: ${error.message}`);
    });
    if (!first.startsWith('blocks ')) {
      keeper.kill('SIGKILL');
      const claimed = Number(first.split(' ')[1] ?? 0);
      throw new Error(
        `FLOWMESH_SANDBOX_UIDS ${range.first}-${range.last}: this worker needs ${need} blocks of ${UID_BLOCK} uids and found ${claimed} free (other workers of this machine hold the rest): widen the range`,
      );
    }
    const uids = first
      .slice('blocks '.length)
      .split(' ')
      .flatMap((block) => Array.from({ length: UID_BLOCK }, (_, i) => Number(block) * UID_BLOCK + i));
    const [sandboxUid, ...jobUids] = uids;
    const user = (uid: number): SandboxUser => ({ name: String(uid), uid, gid: uid });
    const pool = new SandboxUids(keeper, user(sandboxUid), jobUids.slice(0, jobs));
    lines.on('line', (line) => pool.onReply(line));
    keeper.on('exit', (code, signal) =>
      pool.fail(new Error(`the uid keeper exited (${signal ?? `code ${code}`}): process jobs cannot run`)),
    );
    // It lives as long as the worker, which it must not keep alive.
    keeper.unref();
    for (const stream of [keeper.stdin, keeper.stdout, keeper.stderr])
      (stream as unknown as { unref?: () => void } | null)?.unref?.();
    return pool;
  }

  /** A uid for a job; jobs beyond the pool's size wait for one. */
  async lease(key?: string): Promise<UidLease> {
    if (key !== undefined) await this.releasing.get(key);
    if (this.broken) throw this.broken;
    return (
      this.take(key) ??
      new Promise<UidLease>((resolve, reject) => this.waiters.push({ key, resolve, reject }))
    );
  }

  /** Lets the uids go: the keeper kills what runs under them and exits. */
  close(): void {
    this.keeper.stdin?.end();
  }

  private take(key: string | undefined): UidLease | undefined {
    const shared = key !== undefined ? this.held.get(key) : undefined;
    if (shared) {
      shared.count += 1;
      return this.leaseOf(key, shared, true);
    }
    const preferred = key !== undefined ? this.free.findIndex((uid) => this.lastKey.get(uid) === key) : -1;
    const index = preferred >= 0 ? preferred : this.free.length > 0 ? 0 : -1;
    if (index < 0) return undefined;
    const [uid] = this.free.splice(index, 1) as [number];
    const held: Held = { uid, count: 1 };
    if (key !== undefined) this.held.set(key, held);
    return this.leaseOf(key, held, preferred >= 0);
  }

  private leaseOf(key: string | undefined, held: Held, resumed: boolean): UidLease {
    let released = false;
    return {
      user: { name: String(held.uid), uid: held.uid, gid: held.uid },
      resumed,
      release: async (cleanup) => {
        if (released) return;
        released = true;
        held.count -= 1;
        if (held.count > 0) {
          await cleanup?.(false);
          return;
        }
        if (key !== undefined) this.held.delete(key);
        const done = this.giveBack(held.uid, key, cleanup);
        if (key !== undefined)
          this.releasing.set(
            key,
            done.catch(() => undefined),
          );
        try {
          await done;
        } finally {
          if (key !== undefined && this.held.get(key) === undefined) this.releasing.delete(key);
        }
      },
    };
  }

  private async giveBack(
    uid: number,
    key: string | undefined,
    cleanup: ((last: boolean) => Promise<void>) | undefined,
  ): Promise<void> {
    // A uid that could not be killed clean is not handed out again.
    await this.reap(uid);
    try {
      await cleanup?.(true);
    } finally {
      this.lastKey.set(uid, key);
      this.free.push(uid);
      this.serveWaiters();
    }
  }

  private serveWaiters(): void {
    while (this.waiters.length > 0) {
      const lease = this.take(this.waiters[0].key);
      if (!lease) return;
      this.waiters.shift()!.resolve(lease);
    }
  }

  private reap(uid: number): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    // Waiting for the keeper's answer keeps the process alive; nothing else of it does.
    this.streamRef(true);
    return new Promise<void>((resolve, reject) => {
      this.replies.push({ resolve, reject });
      this.keeper.stdin!.write(`${uid}\n`);
    });
  }

  private streamRef(on: boolean): void {
    const stream = this.keeper.stdout as unknown as { ref?: () => void; unref?: () => void } | null;
    if (on) stream?.ref?.();
    else stream?.unref?.();
  }

  private onReply(line: string): void {
    const reply = this.replies.shift();
    if (this.replies.length === 0) this.streamRef(false);
    if (!reply) return;
    if (line.startsWith('reaped ')) reply.resolve();
    else reply.reject(new Error(`the processes of uid ${line.split(' ')[1]} could not be killed`));
  }

  private fail(error: Error): void {
    this.broken ??= error;
    this.streamRef(false);
    for (const reply of this.replies.splice(0)) reply.reject(error);
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }
}

/** Made root's own (`rwx------`); one that exists must be a directory of root's that nobody else may write. */
async function privateDirectory(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  const stat = await lstat(path);
  if (!stat.isDirectory() || stat.uid !== process.getuid?.())
    throw new Error(`FLOWMESH_SANDBOX_UID_LOCKS: ${path} is not a directory of this worker's user`);
  await chmod(path, 0o700);
}
