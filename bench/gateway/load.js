// Load shapes of the gateway benchmark: sequential latency, closed-loop throughput at a given
// concurrency, and time to the first streamed byte. Every request runs on a keep-alive pool.
import { Pool } from 'undici';

export function percentile(sorted, p) {
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * (sorted.length - 1)))];
}

export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** A target: where requests go and with which headers. */
export function target(name, url, path, headers) {
  const pool = new Pool(url, { connections: 64, pipelining: 1, keepAliveTimeout: 60_000 });
  return { name, pool, path, headers: { 'content-type': 'application/json', ...headers } };
}

/** One request; resolves to [total ms, ms to the first body byte]. Fails loudly on a bad status. */
export async function once(t, body) {
  try {
    return await exchange(t, body);
  } catch (error) {
    // A dropped connection says nothing of whose: name the target.
    throw new Error(`${t.name}: ${error.message}`, { cause: error });
  }
}

async function exchange(t, body) {
  const started = performance.now();
  const { statusCode, body: stream } = await t.pool.request({
    method: 'POST',
    path: t.path,
    headers: t.headers,
    body,
  });
  let first = Number.NaN;
  let text = '';
  for await (const chunk of stream) {
    if (Number.isNaN(first)) first = performance.now() - started;
    if (statusCode >= 400) text += chunk;
  }
  if (statusCode >= 400) throw new Error(`answered ${statusCode}: ${text.slice(0, 300)}`);
  return [performance.now() - started, first];
}

/**
 * `rounds` sequential requests per target, alternating targets request by request, so whatever
 * else loads the machine falls on every target alike.
 */
export async function interleaved(targets, body, rounds) {
  const totals = targets.map(() => []);
  const firsts = targets.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [index, t] of targets.entries()) {
      const [total, first] = await once(t, body);
      totals[index].push(total);
      firsts[index].push(first);
    }
  }
  return targets.map((t, index) => ({
    name: t.name,
    total: summarize(totals[index]),
    first: summarize(firsts[index]),
  }));
}

/** `concurrency` closed loops for `seconds`: requests/s and latency under load. */
export async function throughput(t, body, concurrency, seconds, onTick = () => {}) {
  const samples = [];
  const deadline = performance.now() + seconds * 1000;
  let tick = 0;
  const loop = async () => {
    while (performance.now() < deadline) {
      const [total] = await once(t, body);
      samples.push(total);
      if (++tick % 500 === 0) onTick();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - started) / 1000;
  return { name: t.name, rate: samples.length / elapsed, ...summarize(samples) };
}
