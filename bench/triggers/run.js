// Triggers benchmark (issue 33): webhook to flow start, webhook latency and executions/s with 100
// in flight beside n8n's Webhook node in the same run; schedule lateness with 1 000 schedules due
// every second (p50/p99, missed and doubled ticks) beside a bare timer's lateness on the same
// machine. See README.md.
// Run: npm run build && node_modules/.bin/node bench/triggers/run.js
import { cpus, loadavg } from 'node:os';
import { ms, rate, ratio } from '../flows/stats.js';
import { startTriggersMesh } from './mesh.js';
import { startN8nWebhooks } from './n8n-webhooks.js';
import { schedulePart } from './schedules.js';
import { saveFlows, webhookPart } from './webhooks.js';

const PARTS = new Set((process.env.BENCH_PARTS ?? 'webhooks,schedules').split(',').map((p) => p.trim()));
const PEER = process.env.BENCH_PEER ?? 'auto';
const WEBHOOK = {
  caller: process.env.BENCH_WEBHOOK_TOKEN ?? 'run-token',
  samples: Number(process.env.BENCH_SAMPLES ?? 200),
  warmup: Number(process.env.BENCH_WARMUP ?? 20),
  inFlight: Number(process.env.BENCH_IN_FLIGHT ?? 100),
  seconds: Number(process.env.BENCH_THROUGHPUT_SECONDS ?? 10),
  warmupSeconds: Number(process.env.BENCH_THROUGHPUT_WARMUP_SECONDS ?? 15),
};
const SCHEDULES = {
  count: Number(process.env.BENCH_SCHEDULES ?? 1000),
  seconds: Number(process.env.BENCH_SCHEDULE_SECONDS ?? 20),
  settleSeconds: Number(process.env.BENCH_SCHEDULE_SETTLE_SECONDS ?? 5),
  graceSeconds: Number(process.env.BENCH_SCHEDULE_GRACE_SECONDS ?? 10),
};
const TARGETS = { webhookRatio: 5, scheduleP99Ms: 100 };

const loads = (l) => l.map((x) => x.toFixed(2)).join(' ');
function line(label, value) {
  console.log(`${label.padEnd(58)} ${value}`);
}
const p = (s) => `p50 ${ms(s.p50)}  p99 ${ms(s.p99)}  (n=${s.n})`;

/** Stops a system; a slow or unclean stop is reported, not fatal: the figures are taken. */
async function stopQuietly(name, system) {
  try {
    await system.stop();
  } catch (error) {
    console.warn(`(${name} did not stop cleanly: ${error instanceof Error ? error.message : String(error)})`);
  }
}

const loadBefore = loadavg();
console.log(`bench/triggers: ${cpus().length} cores, load average ${loads(loadBefore)}`);
const missed = [];

if (PARTS.has('webhooks')) {
  const fm = await startTriggersMesh();
  let n8n;
  let peerSkipped = PEER === 'off' ? 'BENCH_PEER=off' : undefined;
  let result;
  try {
    if (PEER !== 'off') {
      try {
        n8n = await startN8nWebhooks();
      } catch (error) {
        peerSkipped = error instanceof Error ? error.message : String(error);
      }
    }
    const authorization = await saveFlows(fm, WEBHOOK.caller);
    result = await webhookPart(fm, n8n, WEBHOOK, authorization);
  } finally {
    await Promise.all([stopQuietly('the mesh', fm), n8n && stopQuietly('n8n', n8n)]);
  }
  const { sync, toStep, ack, toStart, toCreated, tput, preprocessorRan, triggerKind } = result;
  console.log('');
  console.log(
    `webhooks: a saved flow of one TypeScript step run by path (jobs/run*/f/<path>), called with ${WEBHOOK.caller === 'admin' ? "the admin's token" : 'a run token (jobs:run on the paths)'}; the job's trigger_kind: ${triggerKind}`,
  );
  line('flowmesh sync (run_wait_result) end to end', p(sync.flowmesh));
  line('  with a preprocessor' + (preprocessorRan ? '' : ' (it did NOT run)'), p(sync.flowmeshPre));
  line('flowmesh request -> step code running', p(toStep.flowmesh));
  line('  with a preprocessor (it runs first)', p(toStep.flowmeshPre));
  line('flowmesh async (run) answer', p(ack.flowmesh));
  line('flowmesh async request -> flow job created', p(toCreated.flowmesh));
  line('flowmesh async request -> flow started (webhook to start)', p(toStart.flowmesh));
  line('  with a preprocessor', p(toStart.flowmeshPre));
  const perSecond = ({ steady, overall, flows }) =>
    `${rate(steady)}  (${rate(overall)} overall; ${flows} runs)`;
  line(`flowmesh sync executions/s, ${WEBHOOK.inFlight} in flight`, perSecond(tput.flowmesh));
  line('  with a preprocessor', perSecond(tput.flowmeshPre));
  if (n8n) {
    const v = n8n.version;
    line(`n8n ${v} Webhook -> Code, lastNode, end to end`, p(sync.n8n));
    line(`n8n request -> Code node running`, p(toStep.n8n));
    line(`n8n onReceived answer`, p(ack.n8n));
    line(`n8n onReceived request -> execution created`, p(toCreated.n8n));
    line(`n8n onReceived request -> execution started`, p(toStart.n8n));
    line(`n8n executions/s, ${WEBHOOK.inFlight} in flight`, perSecond(tput.n8n));
    line('n8n/flowmesh sync end to end p50 (>1: flowmesh faster)', ratio(sync.n8n.p50, sync.flowmesh.p50));
    line('n8n/flowmesh request -> step running p50', ratio(toStep.n8n.p50, toStep.flowmesh.p50));
    line('n8n/flowmesh webhook to start p50', ratio(toStart.n8n.p50, toStart.flowmesh.p50));
    const times = ratio(tput.flowmesh.steady, tput.n8n.steady);
    line('flowmesh/n8n executions/s', times);
    line('flowmesh with a preprocessor/n8n executions/s', ratio(tput.flowmeshPre.steady, tput.n8n.steady));
    if (!(tput.flowmesh.steady >= TARGETS.webhookRatio * tput.n8n.steady))
      missed.push(`webhook executions/s ${times} n8n, not ≥ ${TARGETS.webhookRatio}x`);
  } else line('n8n peer', `skipped: ${peerSkipped}`);
  const cpuLines = (label, { cpu, flows }) => {
    console.log(
      `CPU during ${label}'s timed burst (${cpu.seconds.toFixed(1)} s, the machine ${(cpu.busyShare * 100).toFixed(0)} % busy), ms per execution:`,
    );
    for (const [group, cpuMs] of cpu.groups)
      line(`  ${group}`, `${(cpuMs / Math.max(1, flows)).toFixed(2)} ms  (${(cpuMs / 1000).toFixed(1)} s)`);
  };
  cpuLines('flowmesh', tput.flowmesh);
  if (tput.n8n) cpuLines('n8n', tput.n8n);
  if (!preprocessorRan) missed.push('the preprocessor did not run on a run by path');
}

if (PARTS.has('schedules')) {
  const fm = await startTriggersMesh();
  let result;
  try {
    result = await schedulePart(fm, SCHEDULES);
  } finally {
    await stopQuietly('the mesh', fm);
  }
  const r = result;
  console.log('');
  console.log(
    `schedules: ${r.count} schedules due every second (* * * * * *), ${r.seconds} s measured (${r.expected} ticks); created in ${r.createSeconds.toFixed(1)} s`,
  );
  line('runs in the window / ticks with a run', `${r.runs} / ${r.ticksWithRun}`);
  line('missed ticks (no run) / doubled (a second run of a tick)', `${r.missed} / ${r.doubled}`);
  if (r.offTick) line('runs whose scheduled_for is not a whole second', String(r.offTick));
  if (r.notQueued) line('runs whose work message was not published by the end', String(r.notQueued));
  if (r.notStarted) line('runs not started by the end of the grace time', String(r.notStarted));
  console.log('each step against the tick (negative: before it):');
  if (r.claimed.n) line('  ticker claimed the tick (schedule_run.created_at)', p(r.claimed));
  line('  run job made, parked until its tick (job.created_at)', p(r.created));
  line('  run made due, work message queued (outbox row)', p(r.queued));
  line('  FIRED: its work message published (outbox mark)', p(r.published));
  line('  a worker started the run (job.started_at)', p(r.started));
  line('  run completed (job.completed_at)', p(r.completed));
  if (r.batches.n)
    line(
      'ticker claims: ticks per claim / claim to its last job made',
      `p50 ${r.batches.ticks.p50} ticks, ${ms(r.batches.took.p50)} (${ms(r.batches.perTick.p50)} a tick); p99 ${ms(r.batches.took.p99)}  (${r.batches.n} claims)`,
    );
  const perSecondLine = (list) => list.map((v) => (Number.isFinite(v) ? v.toFixed(0) : '-')).join(' ');
  line('fired p99 per second of the window', perSecondLine(r.publishedP99BySecond));
  line('started p99 per second of the window', perSecondLine(r.startedP99BySecond));
  line('floor: a bare setTimeout on the same seconds, late by', p(r.floor));
  line('the script run by path alone: job made -> started', p(r.direct));
  line(
    `floor: the mesh's capacity, ${r.capacity.runs} runs by path, 100 in flight`,
    `${r.capacity.perSecond.toFixed(0)} runs/s (${r.capacity.seconds.toFixed(1)} s): ${
      r.capacity.perSecond >= r.count
        ? `room for the ${r.count} a second asked`
        : `${(r.count / r.capacity.perSecond).toFixed(1)}x short of the ${r.count} a second asked`
    }`,
  );
  console.log(
    `CPU over the window (${r.cpu.seconds.toFixed(1)} s, the machine ${(r.cpu.busyShare * 100).toFixed(0)} % busy), ms per run and in all:`,
  );
  for (const [group, cpuMs] of r.cpu.groups)
    line(`  ${group}`, `${(cpuMs / Math.max(1, r.runs)).toFixed(2)} ms  (${(cpuMs / 1000).toFixed(1)} s)`);
  if (!(r.published.p99 <= TARGETS.scheduleP99Ms))
    missed.push(`schedule lateness (fired) p99 ${ms(r.published.p99)} > ${TARGETS.scheduleP99Ms} ms`);
  if (r.notQueued > 0) missed.push(`${r.notQueued} scheduled runs never fired`);
  if (r.missed > 0) missed.push(`${r.missed} schedule ticks missed`);
  if (r.doubled > 0) missed.push(`${r.doubled} schedule ticks doubled`);
}

const loadAfter = loadavg();
console.log(`load average before ${loads(loadBefore)}, after ${loads(loadAfter)}`);
console.log(missed.length ? `targets missed: ${missed.join('; ')}` : 'all targets met');
process.exitCode = missed.length ? 1 : 0;
