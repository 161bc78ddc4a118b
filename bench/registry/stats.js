/** Percentiles and formatting for the registry benchmark. */
export function percentile(sortedMs, p) {
  if (sortedMs.length === 0) return Number.NaN;
  return sortedMs[Math.min(sortedMs.length - 1, Math.floor((p / 100) * (sortedMs.length - 1)))];
}

export function summarize(samplesMs) {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

export const ms = (value) => `${value.toFixed(3)} ms`;
export const rate = (perSecond) => `${Math.round(perSecond).toLocaleString('en-US')}/s`;
