// Where one agent step's time goes: the bench's agent flow run sequentially with every process
// sending its spans (OTLP over HTTP, JSON) to a sink on loopback; then, per span (by process and
// name, `#n` for its n-th in the trace), the median start and end in ms from agent-runtime
// receiving `agent.step.start`. Spans cost time: the flow is slower traced than in run.js.
// Run: npm run build && node_modules/.bin/node bench/agent/trace.js (TRACE_STEPS, TRACE_WARMUP)
import { createServer } from 'node:http';
import { startAgentBench } from './flows.js';

const STEPS = Number(process.env.TRACE_STEPS ?? 60);
const WARMUP = Number(process.env.TRACE_WARMUP ?? 20);

const spans = [];
const sink = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service =
          resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ??
          '?';
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              service,
              name: span.name,
              traceId: span.traceId,
              start: Number(BigInt(span.startTimeUnixNano) / 1000n) / 1000,
              end: Number(BigInt(span.endTimeUnixNano) / 1000n) / 1000,
            });
      }
    } catch {
      // not JSON: ignored
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${sink.address().port}/v1/traces`;

const bench = await startAgentBench({
  env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' },
});
const flows = [];
try {
  for (let i = 0; i < WARMUP + STEPS; i++) {
    const run = await bench.agent(i);
    if (i >= WARMUP) flows.push(run.ms);
  }
  // The last spans reach the sink.
  await new Promise((resolve) => setTimeout(resolve, 2000));
} finally {
  await bench.stop();
  sink.closeAllConnections();
  sink.close();
}

// The trace of each flow: the one holding the step's `agent.step.start` as agent-runtime handled it.
const byTrace = new Map();
for (const span of spans) {
  if (!byTrace.has(span.traceId)) byTrace.set(span.traceId, []);
  byTrace.get(span.traceId).push(span);
}
const rows = new Map();
let traced = 0;
for (const trace of byTrace.values()) {
  const anchor = trace.find((s) => s.service === 'agent-runtime' && /agent\.step\.start/.test(s.name));
  if (!anchor) continue;
  traced++;
  const seen = new Map();
  for (const span of trace.sort((a, b) => a.start - b.start)) {
    const n = (seen.get(`${span.service} ${span.name}`) ?? 0) + 1;
    seen.set(`${span.service} ${span.name}`, n);
    const key = `${span.service.padEnd(18)} ${span.name}${n > 1 ? ` #${n}` : ''}`;
    if (!rows.has(key)) rows.set(key, []);
    rows.get(key).push({ start: span.start - anchor.start, end: span.end - anchor.start });
  }
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};
const flowMs = median(flows);
console.log(`${traced} traced steps; flow end to end p50 ${flowMs.toFixed(1)} ms`);
console.log(`${'start'.padStart(7)} ${'end'.padStart(7)} ${'n'.padStart(4)}  service / span`);
const ordered = [...rows.entries()]
  .filter(([, list]) => list.length >= traced / 2)
  .map(([key, list]) => ({
    key,
    n: list.length,
    start: median(list.map((r) => r.start)),
    end: median(list.map((r) => r.end)),
  }))
  .sort((a, b) => a.start - b.start);
for (const row of ordered)
  console.log(
    `${row.start.toFixed(1).padStart(7)} ${row.end.toFixed(1).padStart(7)} ${String(row.n).padStart(4)}  ${row.key}`,
  );
process.exit(0);
