// n8n as the peer of the webhook part: the n8n installed for bench/flows (bench/flows/peer), started
// as bench/flows/n8n-peer.js starts it (its own user folder and SQLite database, defaults but for
// telemetry), with two workflows of a Webhook node and one Code node: one answering with the last
// node (sync), one answering on receipt (async). Their executions' start times are read from
// n8n's own database (`execution_entity.startedAt`), as flowmesh's are from its jobs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';

const PEER_DIR = fileURLToPath(new URL('../flows/peer/', import.meta.url));
const N8N_BIN = join(PEER_DIR, 'node_modules', 'n8n', 'bin', 'n8n');

/** The one Code node: the webhook's `n` plus one, and when it ran (ms since the epoch). */
const CODE = 'return [{ json: { x: $input.first().json.body.n + 1, at: Date.now() } }];';

/** Webhook -> one Code node; `responseMode` `lastNode` (sync) or `onReceived` (async). */
export function webhookWorkflow(kind) {
  const responseMode = kind === 'sync' ? 'lastNode' : 'onReceived';
  const digit = kind === 'sync' ? '1' : '2';
  return {
    id: `flowmeshtrig${kind}`.padEnd(16, '0').slice(0, 16),
    name: `flowmesh bench webhook ${kind}`,
    active: true,
    nodes: [
      {
        id: `webhook-${kind}`,
        name: 'Webhook',
        type: 'n8n-nodes-base.webhook',
        typeVersion: 2,
        position: [0, 0],
        webhookId: `00000000-0000-4000-8000-00000000010${digit}`,
        parameters: { httpMethod: 'POST', path: `trig-${kind}`, responseMode, options: {} },
      },
      {
        id: `code-${kind}`,
        name: 'Code',
        type: 'n8n-nodes-base.code',
        typeVersion: 2,
        position: [220, 0],
        parameters: { jsCode: CODE },
      },
    ],
    connections: { Webhook: { main: [[{ node: 'Code', type: 'main', index: 0 }]] } },
    settings: { executionOrder: 'v1' },
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A timestamp column of n8n's SQLite database (`YYYY-MM-DD HH:MM:SS.sss`, UTC) in ms. */
function sqliteMs(value) {
  if (value === null || value === undefined) return Number.NaN;
  if (typeof value === 'number') return value;
  const text = String(value).replace(' ', 'T');
  return Date.parse(/Z|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
}

/**
 * Starts n8n on a free port with its own user folder, imports and publishes the two workflows,
 * and answers `sync(n)` / `async(n)` callers, `executions(kind)` (start times from its database)
 * and `stop()`. Throws with the reason when n8n is not installed or does not come up.
 */
export async function startN8nWebhooks() {
  if (!existsSync(N8N_BIN))
    throw new Error('n8n is not installed (npm i --prefix bench/flows/peer --ignore-scripts)');
  const version = JSON.parse(
    readFileSync(join(PEER_DIR, 'node_modules', 'n8n', 'package.json'), 'utf8'),
  ).version;
  const home = mkdtempSync(join(tmpdir(), 'fm-bench-n8n-trig-'));
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    N8N_USER_FOLDER: home,
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_HIRING_BANNER_ENABLED: 'false',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
    N8N_SECURE_COOKIE: 'false',
    DB_SQLITE_POOL_SIZE: '4',
    N8N_LOG_LEVEL: 'warn',
  };
  const cli = (args) => {
    const result = spawnSync(process.execPath, [N8N_BIN, ...args], {
      env,
      encoding: 'utf8',
      timeout: 240_000,
    });
    if (result.status !== 0)
      throw new Error(
        `n8n ${args.join(' ')} failed (${result.status}): ${(result.stderr || result.stdout).slice(-2000)}`,
      );
    return result.stdout;
  };
  const workflows = { sync: webhookWorkflow('sync'), async: webhookWorkflow('async') };
  for (const [kind, workflow] of Object.entries(workflows)) {
    const file = join(home, `workflow-${kind}.json`);
    writeFileSync(file, JSON.stringify(workflow));
    cli(['import:workflow', `--input=${file}`]);
    // n8n 2 imports workflows inactive; publishing activates one (older versions: update:workflow).
    try {
      cli(['publish:workflow', `--id=${workflow.id}`]);
    } catch {
      cli(['update:workflow', `--id=${workflow.id}`, '--active=true']);
    }
  }
  const child = spawn(process.execPath, [N8N_BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  let db;
  const stop = async () => {
    db?.close();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    rmSync(home, { recursive: true, force: true });
  };

  /** POSTs `{n}` to a workflow's webhook; answers the send time (epoch ms) and the parsed answer. */
  const call = async (kind, n) => {
    const sentAt = performance.timeOrigin + performance.now();
    const response = await fetch(`${base}/webhook/trig-${kind}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n }),
    });
    const text = await response.text();
    const doneAt = performance.timeOrigin + performance.now();
    if (response.status !== 200)
      throw new Error(`n8n webhook trig-${kind} answered ${response.status}: ${text.slice(0, 500)}`);
    return { sentAt, doneAt, text };
  };
  const sync = async (n) => {
    const answer = await call('sync', n);
    const result = JSON.parse(answer.text);
    if (result.x !== n + 1) throw new Error(`n8n webhook workflow returned ${answer.text.slice(0, 200)}`);
    return { sentAt: answer.sentAt, ms: answer.doneAt - answer.sentAt, stepAt: result.at };
  };
  try {
    const deadline = Date.now() + 180_000;
    for (;;) {
      const code = await Promise.race([
        exited,
        new Promise((resolve) => setTimeout(() => resolve(undefined), 500)),
      ]);
      if (code !== undefined) throw new Error(`n8n exited with ${code} before it was ready:\n${output}`);
      const ok = await sync(0).then(
        () => true,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`n8n did not serve its webhooks within 180 s:\n${output}`);
    }
    db = new DatabaseSync(join(home, '.n8n', 'database.sqlite'), { readOnly: true });
  } catch (error) {
    await stop();
    throw error;
  }
  const executionsOf = db.prepare(
    'SELECT id, status, finished, startedAt, stoppedAt, createdAt FROM execution_entity WHERE workflowId = ? ORDER BY id',
  );
  return {
    version,
    /** The n8n process (its task runner is a child of it). */
    pid: child.pid,
    sync,
    /** POSTs to the async workflow: answers when n8n acknowledged the request (its execution goes on). */
    async: async (n) => {
      const answer = await call('async', n);
      return { sentAt: answer.sentAt, ms: answer.doneAt - answer.sentAt };
    },
    /** The executions of a workflow so far, in the order they were made: `{ startedAt, stoppedAt, createdAt, done }` in ms. */
    executions(kind) {
      return executionsOf.all(workflows[kind].id).map((row) => ({
        id: row.id,
        done: row.stoppedAt !== null && row.stoppedAt !== undefined,
        status: row.status,
        startedAt: sqliteMs(row.startedAt),
        stoppedAt: sqliteMs(row.stoppedAt),
        createdAt: sqliteMs(row.createdAt),
      }));
    },
    stop,
  };
}
