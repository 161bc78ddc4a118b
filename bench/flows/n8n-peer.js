import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PEER_DIR = fileURLToPath(new URL('./peer/', import.meta.url));
const N8N_BIN = join(PEER_DIR, 'node_modules', 'n8n', 'bin', 'n8n');

/**
 * n8n's version of the same workflow: a Webhook node answering with the last node's output,
 * then `steps` Code nodes, each adding one to the previous item's `x`.
 */
export function n8nWorkflow(steps) {
  const code = (i) => ({
    id: `code-${steps}-${i}`,
    name: `Code ${i}`,
    type: 'n8n-nodes-base.code',
    typeVersion: 2,
    position: [220 * i, 0],
    parameters: {
      jsCode:
        i === 1
          ? 'return [{ json: { x: $input.first().json.body.n + 1 } }];'
          : 'return [{ json: { x: $input.first().json.x + 1 } }];',
    },
  });
  const nodes = [
    {
      id: `webhook-${steps}`,
      name: 'Webhook',
      type: 'n8n-nodes-base.webhook',
      typeVersion: 2,
      position: [0, 0],
      webhookId: `00000000-0000-4000-8000-0000000000${String(steps).padStart(2, '0')}`,
      parameters: { httpMethod: 'POST', path: `bench-${steps}`, responseMode: 'lastNode', options: {} },
    },
    ...Array.from({ length: steps }, (_, i) => code(i + 1)),
  ];
  const connections = {};
  for (let i = 0; i < nodes.length - 1; i++)
    connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
  return {
    id: `flowmeshbench${String(steps).padStart(3, '0')}`,
    name: `flowmesh bench ${steps} Code nodes`,
    active: true,
    nodes,
    connections,
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

/**
 * Starts n8n (installed in bench/flows/peer, not a workspace) on a free port with its own
 * user folder (SQLite), imports and activates the workflows, and returns a webhook caller.
 * Throws with the reason when n8n is not installed or does not come up.
 */
export async function startN8n(sizes) {
  if (!existsSync(N8N_BIN)) throw new Error('n8n is not installed (npm i --prefix bench/flows/peer n8n)');
  const version = JSON.parse(
    readFileSync(join(PEER_DIR, 'node_modules', 'n8n', 'package.json'), 'utf8'),
  ).version;
  const home = mkdtempSync(join(tmpdir(), 'fm-bench-n8n-'));
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
  for (const steps of sizes) {
    const file = join(home, `workflow-${steps}.json`);
    writeFileSync(file, JSON.stringify(n8nWorkflow(steps)));
    cli(['import:workflow', `--input=${file}`]);
    // n8n 2 imports workflows inactive; publishing activates one (older versions: update:workflow).
    const id = n8nWorkflow(steps).id;
    try {
      cli(['publish:workflow', `--id=${id}`]);
    } catch {
      cli(['update:workflow', `--id=${id}`, '--active=true']);
    }
  }
  const child = spawn(process.execPath, [N8N_BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    rmSync(home, { recursive: true, force: true });
  };
  const call = async (steps, body) => {
    const started = performance.now();
    const response = await fetch(`${base}/webhook/bench-${steps}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200)
      throw new Error(`n8n webhook bench-${steps} answered ${response.status}: ${text.slice(0, 500)}`);
    const result = JSON.parse(text);
    if (result.x !== body.n + steps)
      throw new Error(`n8n ${steps}-node workflow returned ${text.slice(0, 200)}`);
    return { ms: elapsed };
  };
  try {
    const deadline = Date.now() + 180_000;
    for (;;) {
      const code = await Promise.race([
        exited,
        new Promise((resolve) => setTimeout(() => resolve(undefined), 500)),
      ]);
      if (code !== undefined) throw new Error(`n8n exited with ${code} before it was ready:\n${output}`);
      const ok = await call(sizes[0], { n: 0 }).then(
        () => true,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`n8n did not serve its webhooks within 180 s:\n${output}`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { version, run: call, stop };
}
