/** Percentiles, formatting and concurrent runs for the flows benchmark. */
import { loadavg } from 'node:os';

/** The machine's load averages (1, 5, 15 min), as printed. */
export const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * (sorted.length - 1)))];
}

export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

export const ms = (value) => (Number.isFinite(value) ? `${value.toFixed(value < 10 ? 2 : 1)} ms` : 'n/a');
export const rate = (perSecond) => (Number.isFinite(perSecond) ? `${perSecond.toFixed(1)}/s` : 'n/a');
export const ratio = (peer, ours) =>
  Number.isFinite(peer) && Number.isFinite(ours) && ours > 0 ? `${(peer / ours).toFixed(2)}x` : 'n/a';

/**
 * Runs `runOnce(i)` with `inFlight` outstanding at any time, until `flows` runs started or
 * `seconds` passed. `steady` is completions per second while `inFlight` runs were outstanding:
 * from the first completion to the one after which the last run started (in a closed loop each
 * completion starts the next run). `overall` also counts the ramp-up and the drain at the end,
 * when fewer are in flight.
 */
export async function burst(runOnce, { flows = Infinity, seconds = Infinity, inFlight }) {
  let next = 0;
  let doneAtLastStart = 0;
  const completedAt = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const lane = async () => {
    while (next < flows && performance.now() < deadline) {
      const i = next++;
      doneAtLastStart = completedAt.length;
      await runOnce(i);
      completedAt.push(performance.now());
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, flows) }, lane));
  const overall = (completedAt.length * 1000) / (performance.now() - started);
  const last = doneAtLastStart - 1;
  const steady = last > 0 ? (last * 1000) / (completedAt[last] - completedAt[0]) : overall;
  return { steady, overall, flows: completedAt.length };
}
