// CPU time per process group over a stretch of the run, from /proc (Linux; 10 ms ticks), as
// bench/flows/cpu-profile.js reads it: which of the mesh's processes the schedule window kept
// busy, and how much the rest of the machine (other engineers' runs) took meanwhile.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10;

const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

function stat(pid) {
  const text = read(`/proc/${pid}/stat`);
  if (!text) return undefined;
  const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { name, ppid: fields[1], ticks: Number(fields[11]) + Number(fields[12]) };
}

/** Busy and all ticks of the whole machine (`/proc/stat`'s cpu line). */
function machine() {
  const fields = (read('/proc/stat') ?? '').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const all = fields.reduce((sum, value) => sum + value, 0);
  return { busy: all - idle, all };
}

/**
 * A snapshot of every process's CPU ticks, grouped: the mesh's processes by name (`mesh` maps a
 * pid to a name; their children, the worker's script sandbox, count as `<name> children`),
 * postgres, nats-server, this process, and the rest of the machine.
 */
export function cpuSnapshot(mesh) {
  const procs = new Map();
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    const s = stat(pid);
    if (s) procs.set(pid, s);
  }
  const groupOf = (pid) => {
    if (mesh.has(pid)) return mesh.get(pid);
    const s = procs.get(pid);
    if (Number(pid) === process.pid) return 'bench (this process)';
    for (let parent = s.ppid, hops = 0; parent && parent !== '0' && hops < 5; hops++) {
      if (mesh.has(parent)) return `${mesh.get(parent)} children`;
      parent = procs.get(parent)?.ppid;
    }
    if (s.name === 'postgres') return 'postgres (all its databases)';
    if (s.name.startsWith('nats-server')) return 'nats-server';
    return 'rest of the machine';
  };
  const ticks = new Map();
  for (const [pid, s] of procs) ticks.set(pid, { group: groupOf(pid), ticks: s.ticks });
  return { ticks, machine: machine(), at: performance.now() };
}

/**
 * CPU ms per group between two snapshots (processes present in both), largest first, with the
 * machine's busy share and the stretch's length.
 */
export function cpuBetween(before, after) {
  const byGroup = new Map();
  for (const [pid, { group, ticks }] of after.ticks) {
    const earlier = before.ticks.get(pid);
    if (!earlier) continue;
    byGroup.set(group, (byGroup.get(group) ?? 0) + (ticks - earlier.ticks) * TICK_MS);
  }
  const busy = after.machine.busy - before.machine.busy;
  const all = after.machine.all - before.machine.all;
  return {
    seconds: (after.at - before.at) / 1000,
    busyShare: all > 0 ? busy / all : Number.NaN,
    groups: [...byGroup].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]),
  };
}
