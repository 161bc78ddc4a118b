/** Percentiles, formatting and concurrent runs for the flows benchmark. */
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

/** Runs `runOnce(i)` `total` times, `inFlight` outstanding at any time: completions per second. */
export async function burst(runOnce, total, inFlight) {
  let next = 0;
  let done = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < total) {
      const i = next++;
      await runOnce(i);
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, lane));
  return (done * 1000) / (performance.now() - started);
}
