// How long after a step ends is its completion durable (issue 34 point 5)? A trigger on the
// orchestrator's job table stamps, with Postgres' clock, the moment a step job's row becomes
// `completed` (in the statement that commits it; the commit follows within the statement); the
// step returns the moment it ended by its own clock, and the engine records its own end
// (`completed_at`). Two loads, one after the other on one mesh:
//   side effects: BENCH_FLOWS (200) flows of 5 steps that each wait 0-400 ms, submitted at once
//                 (the durability suite's load, test/durability-completions.test.ts);
//   throughput:   BENCH_TPUT_FLOWS (2 000) ten-step flows of trivial steps, 100 in flight.
// Prints p50 / p99 / max of end -> durable for each. See README.md.
// Run: npm run build && node_modules/.bin/node bench/flows/durable-latency.js
import { cpus } from 'node:os';
import pg from 'pg';
import { chainFlow, startFlowmesh } from './flowmesh-runner.js';
import { burst, loadAverage, percentile } from './stats.js';

const FLOWS = Number(process.env.BENCH_FLOWS ?? 200);
const TPUT_FLOWS = Number(process.env.BENCH_TPUT_FLOWS ?? 2_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 100);

/** A flow of `steps` steps, each returning `{ n: n + 1, end }` after waiting 0 to `waitMs` ms. */
function stampedFlow(steps, waitMs) {
  const wait = `await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * ${waitMs})));`;
  const content = `export async function main(x: number) { ${waitMs > 0 ? wait : ''} return { n: x + 1, end: Date.now() }; }`;
  return chainFlow(steps, content, 'previous_result.n');
}

console.log(`bench/flows/durable-latency: ${cpus().length} cores, load average ${loadAverage()}`);
const fm = await startFlowmesh();
const db = new pg.Client({ connectionString: fm.databaseUrl });
await db.connect();
try {
  await db.query(`
    CREATE TABLE IF NOT EXISTS public.bench_durable (
      id uuid PRIMARY KEY, script_end bigint, engine_end timestamptz, durable_at timestamptz NOT NULL);
    CREATE OR REPLACE FUNCTION public.bench_durable_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.status = 'completed' AND NEW.parent_job IS NOT NULL AND jsonb_typeof(NEW.result) = 'object' THEN
        INSERT INTO public.bench_durable VALUES (
          NEW.id, (NEW.result->>'end')::bigint, NEW.completed_at, clock_timestamp())
        ON CONFLICT (id) DO NOTHING;
      END IF;
      RETURN NEW;
    END $$;
    DROP TRIGGER IF EXISTS bench_durable ON orchestrator.job;
    CREATE TRIGGER bench_durable AFTER INSERT OR UPDATE ON orchestrator.job
      FOR EACH ROW EXECUTE FUNCTION public.bench_durable_stamp();`);

  const measure = async () => {
    const { rows } = await db.query(`
      SELECT extract(epoch FROM durable_at) * 1000 - script_end AS from_script,
             extract(epoch FROM durable_at - engine_end) * 1000 AS from_engine
      FROM public.bench_durable`);
    await db.query('TRUNCATE public.bench_durable');
    const summary = (values) => {
      const sorted = values.map(Number).sort((a, b) => a - b);
      const f = (v) => `${v.toFixed(1)} ms`;
      return `p50 ${f(percentile(sorted, 50))}  p99 ${f(percentile(sorted, 99))}  max ${f(sorted.at(-1))}`;
    };
    return {
      n: rows.length,
      fromScript: summary(rows.map((row) => row.from_script)),
      fromEngine: summary(rows.map((row) => row.from_engine)),
    };
  };

  // Warm (untimed), then the durability suite's load: every flow submitted at once.
  const ten = stampedFlow(10, 0);
  await burst((i) => fm.run(ten, { n: i }), { flows: 300, inFlight: IN_FLIGHT });
  await db.query('TRUNCATE public.bench_durable');
  const sideEffects = stampedFlow(5, 400);
  const results = await Promise.all(Array.from({ length: FLOWS }, (_, i) => fm.run(sideEffects, { n: i })));
  const first = await fm.get(results[0].id);
  if (first.result?.n !== 5) throw new Error(`a flow returned ${JSON.stringify(first.result)}`);
  const sideEffectLoad = await measure();

  const tput = await burst((i) => fm.run(ten, { n: i }), { flows: TPUT_FLOWS, inFlight: IN_FLIGHT });
  const tputLoad = await measure();

  const line = (label, value) => console.log(`${label.padEnd(58)} ${value}`);
  console.log('');
  line(`${FLOWS} flows x 5 steps (0-400 ms), at once: step end -> durable`, sideEffectLoad.fromScript);
  line(`  the engine's end -> durable (${sideEffectLoad.n} steps)`, sideEffectLoad.fromEngine);
  line(
    `${TPUT_FLOWS} ten-step flows, ${IN_FLIGHT} in flight (${tput.steady.toFixed(1)} flows/s): step end -> durable`,
    tputLoad.fromScript,
  );
  line(`  the engine's end -> durable (${tputLoad.n} steps)`, tputLoad.fromEngine);
  console.log(`load average after ${loadAverage()}`);
} finally {
  await db.end().catch(() => undefined);
  await fm.stop();
}
