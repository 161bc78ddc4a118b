import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFlowMesh, WORKSPACE, type FlowMesh } from './conformance/support/flow-mesh.js';

/**
 * A job reaches neither another job's credentials nor its processes (issue 34): while a victim of
 * each kind runs (bash, python3, a TypeScript process of a `same_worker` flow, and the thread
 * sandbox that holds the TypeScript threads' jobs), an attacker of each language tries, on each
 * victim, to read its environment (`/proc/<pid>/environ`, where its `WM_TOKEN` is), to stop it
 * (`kill -STOP`, then `-CONT`), and to list its working directory, by its path and through
 * `/proc/<pid>/cwd`. Every try is refused, each attacker proves it could do all of it to itself
 * (so a probe that does nothing cannot pass), and every victim ends normally with its token.
 * The one pair not tried: a TypeScript thread against the sandbox it runs in (threads are not a
 * boundary between jobs: runners README).
 */

type Kind = 'bash' | 'python3' | 'ts-process' | 'ts-thread';

interface Victim {
  readonly kind: Kind;
  readonly pid: number;
  readonly workdir: string;
}

interface Attempt {
  readonly kind: Kind;
  readonly environ: string;
  readonly stop: string;
  readonly workdir: string;
  readonly cwd: string;
}

interface AttackReport {
  readonly own: { environ: string; stop: string; workdir: string };
  readonly victims: Attempt[];
}

const VICTIMS: Record<Kind, { language: string; sameWorker?: boolean; content: string }> = {
  bash: {
    language: 'bash',
    content: `stop="$1"
while [ ! -e "$stop" ]; do sleep 0.2; done
echo "\${WM_TOKEN:+token}"`,
  },
  python3: {
    language: 'python3',
    content: `import os, time
def main(stop: str):
    while not os.path.exists(stop):
        time.sleep(0.2)
    return "token" if os.environ.get("WM_TOKEN") else "none"
`,
  },
  'ts-process': {
    language: 'bun',
    sameWorker: true,
    content: `import { existsSync } from 'node:fs';
export async function main(stop: string) {
  while (!existsSync(stop)) await new Promise((resolve) => setTimeout(resolve, 200));
  return process.env.WM_TOKEN ? 'token' : 'none';
}`,
  },
  'ts-thread': {
    language: 'bun',
    content: `import { existsSync } from 'node:fs';
export async function main(stop: string) {
  while (!existsSync(stop)) await new Promise((resolve) => setTimeout(resolve, 200));
  return process.env.WM_TOKEN ? 'token' : 'none';
}`,
  },
};

// Victims come as `kind:pid:workdir;...`: a string reads the same in every language.
const ATTACKERS: Record<Kind, { language: string; sameWorker?: boolean; content: string }> = {
  bash: {
    language: 'bash',
    content: `victims="$1"
out=""
IFS=';' read -ra list <<< "$victims"
for v in "\${list[@]}"; do
  IFS=':' read -r kind pid dir <<< "$v"
  if env=$(tr '\\0' '\\n' < "/proc/$pid/environ" 2>/dev/null); then
    if printf '%s\\n' "$env" | grep -q '^WM_TOKEN='; then environ=token; else environ=read; fi
  else environ=denied; fi
  if kill -STOP "$pid" 2>/dev/null; then kill -CONT "$pid"; stop=sent; else stop=denied; fi
  if ls "$dir" > /dev/null 2>&1; then workdir=listed; else workdir=denied; fi
  if ls "/proc/$pid/cwd/" > /dev/null 2>&1; then cwd=listed; else cwd=denied; fi
  out="$out{\\"kind\\":\\"$kind\\",\\"environ\\":\\"$environ\\",\\"stop\\":\\"$stop\\",\\"workdir\\":\\"$workdir\\",\\"cwd\\":\\"$cwd\\"},"
done
own=denied
tr '\\0' '\\n' < "/proc/$$/environ" | grep -q '^WM_TOKEN=' && own=token
ownstop=denied; kill -0 $$ && ownstop=sent
ownwd=denied; ls . > /dev/null && ownwd=listed
echo "{\\"own\\": {\\"environ\\":\\"$own\\",\\"stop\\":\\"$ownstop\\",\\"workdir\\":\\"$ownwd\\"}, \\"victims\\": [\${out%,}]}" > result.json`,
  },
  python3: {
    language: 'python3',
    content: `import os, signal
def attempt(read):
    try:
        return read()
    except OSError:
        return "denied"
def environ(pid):
    env = open("/proc/%s/environ" % pid, "rb").read().split(b"\\0")
    return "token" if any(v.startswith(b"WM_TOKEN=") for v in env) else "read"
def stop(pid):
    os.kill(pid, signal.SIGSTOP)
    os.kill(pid, signal.SIGCONT)
    return "sent"
def listed(path):
    os.listdir(path)
    return "listed"
def main(victims: str):
    report = []
    for v in filter(None, victims.split(";")):
        kind, pid, workdir = v.split(":")
        pid = int(pid)
        report.append({
            "kind": kind,
            "environ": attempt(lambda: environ(pid)),
            "stop": attempt(lambda: stop(pid)),
            "workdir": attempt(lambda: listed(workdir)),
            "cwd": attempt(lambda: listed("/proc/%s/cwd" % pid)),
        })
    own = os.getpid()
    return {
        "own": {
            "environ": attempt(lambda: environ(own)),
            "stop": attempt(lambda: (os.kill(own, 0), "sent")[1]),
            "workdir": attempt(lambda: listed(".")),
        },
        "victims": report,
    }
`,
  },
  'ts-process': { language: 'bun', sameWorker: true, content: '' },
  'ts-thread': { language: 'bun', content: '' },
};
const TS_ATTACKER = `import { readdirSync, readFileSync } from 'node:fs';
import nodeProcess from 'node:process';
function attempt(read: () => string): string {
  try { return read(); } catch { return 'denied'; }
}
const environ = (pid: number) =>
  readFileSync('/proc/' + pid + '/environ', 'utf8').split('\\0').some((v) => v.startsWith('WM_TOKEN=')) ? 'token' : 'read';
const listed = (path: string) => (readdirSync(path), 'listed');
export function main(victims: string) {
  const report = victims.split(';').filter(Boolean).map((v) => {
    const [kind, pidText, workdir] = v.split(':');
    const pid = Number(pidText);
    return {
      kind,
      environ: attempt(() => environ(pid)),
      stop: attempt(() => { nodeProcess.kill(pid, 'SIGSTOP'); nodeProcess.kill(pid, 'SIGCONT'); return 'sent'; }),
      workdir: attempt(() => listed(workdir)),
      cwd: attempt(() => listed('/proc/' + pid + '/cwd')),
    };
  });
  const own = nodeProcess.pid;
  return {
    own: {
      environ: attempt(() => environ(own)),
      stop: attempt(() => (nodeProcess.kill(own, 0), 'sent')),
      workdir: attempt(() => listed(nodeProcess.cwd())),
    },
    victims: report,
  };
}`;
ATTACKERS['ts-process'] = { ...ATTACKERS['ts-process'], content: TS_ATTACKER };
ATTACKERS['ts-thread'] = { ...ATTACKERS['ts-thread'], content: TS_ATTACKER };

let fm: FlowMesh | undefined;
// The worker's job directories (`FLOWMESH_JOB_DIR`), to find its jobs' processes by their
// working directory; and a directory every uid reads, where the file that ends the victims goes.
const scratch = mkdtempSync(join(tmpdir(), 'fm-cross-job-'));
chmodSync(scratch, 0o711);
const jobDir = join(scratch, 'jobs');
const stopDir = mkdtempSync(join(tmpdir(), 'fm-cross-job-stop-'));
chmodSync(stopDir, 0o755);
const stopFile = join(stopDir, `stop-${randomBytes(4).toString('hex')}`);

beforeAll(async () => {
  fm = await startFlowMesh({
    processes: ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'],
    env: { FLOWMESH_JOB_DIR: jobDir },
  });
}, 300_000);

afterAll(async () => {
  writeFileSync(stopFile, '');
  await fm?.stop();
  rmSync(scratch, { recursive: true, force: true });
  rmSync(stopDir, { recursive: true, force: true });
}, 180_000);

/** Starts a one-step flow of `step` with `arg` as its only argument; its flow job's id. */
async function start(
  step: { language: string; sameWorker?: boolean; content: string },
  name: string,
  value: string,
): Promise<string> {
  const { job_id } = await fm!.jobs.runFlow({
    actor: { token: fm!.actors.admin.token },
    workspace: WORKSPACE,
    value: {
      summary: 'cross-job isolation',
      value: {
        ...(step.sameWorker ? { same_worker: true } : {}),
        modules: [
          {
            id: 'step',
            value: {
              type: 'rawscript',
              language: step.language,
              content: step.content,
              input_transforms: { [name]: { type: 'static', value } },
            },
          },
        ],
      },
    },
    args: {},
  });
  return job_id;
}

/** The worker's job processes (found as root through `/proc`: their working directory). */
function victimsRunning(): Victim[] {
  const found: Victim[] = [];
  for (const entry of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cwd: string;
    let cmdline: string;
    try {
      cwd = readlinkSync(`/proc/${entry}/cwd`);
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cwd.startsWith(`${jobDir}/`)) continue;
    const kind: Kind | undefined = cmdline.includes('thread-sandbox.main')
      ? 'ts-thread'
      : cmdline.includes('typescript-process.main')
        ? 'ts-process'
        : cmdline.includes('/main.py')
          ? 'python3'
          : cmdline.includes('/main.sh')
            ? 'bash'
            : undefined;
    if (kind) found.push({ kind, pid: Number(entry), workdir: cwd });
  }
  return found;
}

async function until<T>(what: string, look: () => T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = look();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.runIf(process.getuid?.() === 0)('a job reaches no other job’s credentials or processes', () => {
  it('bash, python3 and TypeScript steps cannot read, stop or look into concurrent jobs of each kind', async () => {
    const kinds = Object.keys(VICTIMS) as Kind[];
    const victimJobs = new Map<Kind, string>();
    for (const kind of kinds) victimJobs.set(kind, await start(VICTIMS[kind], 'stop', stopFile));
    const victims = await until('every victim running', () => {
      const running = victimsRunning();
      const one = kinds.map((kind) => running.find((victim) => victim.kind === kind));
      return one.every(Boolean) ? (one as Victim[]) : undefined;
    });

    const attacks = await Promise.all(
      kinds.map(async (attacker) => {
        // A TypeScript thread runs inside the sandbox process: it is not its own victim.
        const targets = victims.filter((v) => !(attacker === 'ts-thread' && v.kind === 'ts-thread'));
        const list = targets.map((v) => `${v.kind}:${v.pid}:${v.workdir}`).join(';');
        const id = await start(ATTACKERS[attacker], 'victims', list);
        return { attacker, targets, job: await fm!.waitForEnd(id, 180_000) };
      }),
    );
    writeFileSync(stopFile, '');

    // Every attempt, as `attacker -> victim: environ stop workdir cwd`: all of them refused.
    const seen: string[] = [];
    const refused: string[] = [];
    for (const { attacker, targets, job } of attacks) {
      expect(job.status, `${attacker}: ${JSON.stringify(job.result)}`).toBe('completed');
      const report = job.result as AttackReport;
      // It could do each of these to itself (the TypeScript thread's process has no WM_TOKEN).
      expect(report.own, attacker).toEqual({
        environ: attacker === 'ts-thread' ? 'read' : 'token',
        stop: 'sent',
        workdir: 'listed',
      });
      expect(report.victims.map((v) => v.kind)).toEqual(targets.map((v) => v.kind));
      for (const v of report.victims) {
        seen.push(`${attacker} -> ${v.kind}: ${v.environ} ${v.stop} ${v.workdir} ${v.cwd}`);
        refused.push(`${attacker} -> ${v.kind}: denied denied denied denied`);
      }
    }
    expect(seen).toEqual(refused);

    for (const [kind, id] of victimJobs) {
      const job = await fm!.waitForEnd(id, 120_000);
      expect([kind, job.status, job.result]).toEqual([kind, 'completed', 'token']);
    }
  }, 420_000);

  it("a bash step's arguments are on no command line another job can read", async () => {
    // A `$var:` secret resolved into an argument: as a command-line argument, /proc showed it.
    const secret = `fm-secret-${randomBytes(6).toString('hex')}`;
    const release = join(stopDir, `release-${randomBytes(4).toString('hex')}`);
    const victim = await start(
      {
        language: 'bash',
        content: `secret="$1"
while [ ! -e "${release}" ]; do sleep 0.2; done
echo "$secret"`,
      },
      'secret',
      secret,
    );
    const runs = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`WM_ROOT_FLOW_JOB_ID=${victim}`);
      } catch {
        return false;
      }
    };
    await until('the victim running', () => victimsRunning().find((v) => v.kind === 'bash' && runs(v.pid)));
    // The attacker is given the secret reversed, so its own arguments never hold it.
    const attacker = await start(
      {
        language: 'bash',
        content: `reversed="$1"
secret=$(printf '%s' "$reversed" | rev)
found=none; readable=0
for f in /proc/[0-9]*/cmdline; do
  if line=$(tr '\\0' ' ' < "$f" 2>/dev/null) && [ -n "$line" ]; then
    readable=$((readable + 1))
    case "$line" in *"$secret"*) found="$f";; esac
  fi
done
echo "{\\"found\\": \\"$found\\", \\"readable\\": $readable}" > result.json`,
      },
      'reversed',
      [...secret].reverse().join(''),
    );
    const attack = await fm!.waitForEnd(attacker, 180_000);
    writeFileSync(release, '');
    expect(attack.status, JSON.stringify(attack.result)).toBe('completed');
    const report = attack.result as { found: string; readable: number };
    // It read command lines (its own and the worker's at least), none with the secret.
    expect(report.readable).toBeGreaterThan(1);
    expect(report.found).toBe('none');
    // The victim had its argument all the same.
    const ended = await fm!.waitForEnd(victim, 120_000);
    expect([ended.status, ended.result]).toEqual(['completed', secret]);
  }, 420_000);
});
