import { randomBytes } from 'node:crypto';
import {
  createRegistryIdentityClient,
  createRegistryItemsClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { runFlowmesh, startMesh, waitFor, type TestMesh } from '@flowmesh/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep } from './support/run-api-mesh.js';

/**
 * flowmesh as an MCP server, on processes from the build (registry, orchestrator, worker) behind
 * the one entry point, with the SDK's own client over Streamable HTTP: the tools a token's MCP
 * scope names, a call and its result, a failing run, calls refused, a long run with progress.
 */
const adminToken = `fm_mcp_${randomBytes(24).toString('base64url')}`;
const inMain = { actor: { token: adminToken }, workspace: 'main' };
/** Long enough that a loaded machine still sends several progress notifications meanwhile. */
const SLOW_MS = 3_000;

let mesh: TestMesh;
let conn: MeshConnection;
let items: RegistryItemsClient;
const clients: Client[] = [];

/** A token of `username` made over HTTP at the entry point, as the README tells users to. */
async function tokenWith(scopes: string[] | undefined, username?: string): Promise<string> {
  const response = await fetch(`${mesh.entryUrl}/api/w/main/tokens/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      label: 'mcp test',
      ...(scopes ? { scopes } : {}),
      ...(username ? { username } : {}),
    }),
  });
  const body = (await response.json()) as { token?: string; message?: string };
  if (response.status !== 200 && response.status !== 201)
    throw new Error(`token: ${response.status} ${body.message}`);
  return body.token!;
}

function mcpUrl(workspace = 'main'): URL {
  return new URL(`${mesh.entryUrl}/api/mcp/w/${workspace}/mcp`);
}

/** The SDK's client, connected with `token` as a bearer token (or in the URL, as `?token=`). */
async function connect(token: string, inUrl = false): Promise<Client> {
  const client = new Client({ name: 'flowmesh-test', version: '1.0.0' });
  const url = mcpUrl();
  if (inUrl) url.searchParams.set('token', token);
  const transport = new StreamableHTTPClientTransport(
    url,
    inUrl ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } },
  );
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

beforeAll(async () => {
  mesh = await startMesh({
    processes: ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'],
    env: {
      FLOWMESH_ADMIN_TOKEN: adminToken,
      FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
      FLOWMESH_MCP_PROGRESS_INTERVAL_MS: '300',
      LOG_LEVEL: 'warn',
    },
    entry: true,
    readyTimeoutMs: 150_000,
  });
  conn = await connectMesh({
    url: mesh.env.NATS_URL,
    name: 'mcp-test',
    prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
  });
  const client = new MeshClient(conn);
  items = createRegistryItemsClient(client);
  await createRegistryIdentityClient(client).addUser({
    ...inMain,
    email: 'bob@example.test',
    username: 'bob',
  });
  await items.createScript({
    ...inMain,
    path: 'u/admin/echo',
    summary: 'Echo a name',
    description: 'Greets whoever is named.',
    language: 'bun',
    content: 'export async function main(name: string) { return { hello: name }; }',
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      order: ['name'],
      properties: { name: { type: 'string', description: 'who to greet' } },
      required: ['name'],
    },
  });
  await items.createScript({
    ...inMain,
    path: 'u/admin/fails',
    summary: 'Always fails',
    language: 'bun',
    content: "export async function main() { throw new Error('the tool broke on purpose'); }",
  });
  await items.createScript({
    ...inMain,
    path: 'u/admin/hidden',
    summary: 'Out of the narrow scope',
    language: 'bun',
    content: "export async function main() { return 'should not run'; }",
  });
  await items.createFlow({
    ...inMain,
    path: 'u/admin/slow',
    summary: 'A long run',
    value: {
      modules: [
        scriptStep('wait', `await new Promise((r) => setTimeout(r, ${SLOW_MS})); return { slept: true };`),
      ],
    },
    schema: { type: 'object', properties: {} },
  });
}, 240_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await conn?.drain().catch(() => undefined);
  await mesh?.stop();
}, 120_000);

describe('flowmesh as an MCP server', () => {
  it('lists the scripts and flows of the token’s scope as tools, with their schemas and summaries', async () => {
    const client = await connect(await tokenWith(['mcp:all']));
    expect(client.getServerVersion()?.name).toBe('flowmesh');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'f-u_admin_slow',
      's-u_admin_echo',
      's-u_admin_fails',
      's-u_admin_hidden',
    ]);
    const echo = tools.find((tool) => tool.name === 's-u_admin_echo')!;
    expect(echo.title).toBe('Echo a name');
    expect(echo.description).toContain('Greets whoever is named.');
    expect(echo.inputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string', description: 'who to greet' } },
      required: ['name'],
    });
    // A client that takes only a URL carries the token in it, as Windmill's MCP URLs do.
    const byUrl = await connect(await tokenWith(['mcp:flows:u/admin/slow']), true);
    expect((await byUrl.listTools()).tools.map((tool) => tool.name)).toEqual(['f-u_admin_slow']);
  });

  it('runs a tool as the token’s user and answers with the run’s result', async () => {
    const client = await connect(await tokenWith(['mcp:scripts:u/admin/echo']));
    const result = (await client.callTool({
      name: 's-u_admin_echo',
      arguments: { name: 'Ada' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ hello: 'Ada' });
    expect(result.structuredContent).toEqual({ hello: 'Ada' });
    // Arguments that do not fit the item's schema: a tool error naming the field, nothing run.
    const unfit = (await client.callTool({
      name: 's-u_admin_echo',
      arguments: { name: 3 },
    })) as CallToolResult;
    expect(unfit.isError).toBe(true);
    expect(textOf(unfit)).toContain('args.name: must be string');
    // The run is the admin's, started by the MCP trigger on that path.
    const jobId = result._meta?.['flowmesh/job_id'] as string;
    const job = await fetch(`${mesh.entryUrl}/api/w/main/jobs_u/get/${jobId}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(await job.json()).toMatchObject({
      script_path: 'u/admin/echo',
      created_by: 'admin',
      trigger_kind: 'mcp',
      success: true,
    });
  });

  it('answers a failing run with a tool error carrying the run’s message', async () => {
    const client = await connect(await tokenWith(['mcp:all']));
    const result = (await client.callTool({ name: 's-u_admin_fails', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('the tool broke on purpose');
  });

  it('refuses what the scope does not name, and what the token’s user may not run', async () => {
    // Out of the token's MCP scope: not listed, and its call refused (nothing runs).
    const narrow = await connect(
      await tokenWith(['mcp:scripts:u/admin/echo,u/admin/fails', 'mcp:flows:u/admin/slow']),
    );
    expect((await narrow.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'f-u_admin_slow',
      's-u_admin_echo',
      's-u_admin_fails',
    ]);
    await expect(narrow.callTool({ name: 's-u_admin_hidden', arguments: {} })).rejects.toThrow(
      /unknown tool s-u_admin_hidden/,
    );
    // An MCP scope starts runs of its items only, over the run API too.
    const narrowToken = await tokenWith(['mcp:scripts:u/admin/echo']);
    const byHttp = await fetch(`${mesh.entryUrl}/api/w/main/jobs/run/p/u/admin/hidden`, {
      method: 'POST',
      headers: { authorization: `Bearer ${narrowToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(byHttp.status).toBe(403);

    // bob's token names every item, yet bob may not read the admin's: he has no tool.
    const bob = await connect(await tokenWith(['mcp:all'], 'bob'));
    expect((await bob.listTools()).tools).toEqual([]);
    await expect(bob.callTool({ name: 's-u_admin_echo', arguments: { name: 'x' } })).rejects.toThrow(
      /unknown tool/,
    );

    // A token without an MCP scope, or none at all: the endpoint refuses before any MCP message.
    const post = (headers: Record<string, string>) =>
      fetch(mcpUrl(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    expect((await post({ authorization: `Bearer ${await tokenWith(['jobs:read'])}` })).status).toBe(403);
    expect((await post({})).status).toBe(401);
    await expect(connect(await tokenWith(undefined))).rejects.toThrow(/403|MCP scope/);
  });

  it('makes tokens with Windmill’s MCP scopes, and refuses those flowmesh has nothing for, saying why', async () => {
    await expect(tokenWith(['mcp:favorites'])).rejects.toThrow(/400 .*no favorites/);
    await expect(tokenWith(['mcp:scripts:team/x'])).rejects.toThrow(/400 .*must be a path under u\/ or f\//);
    // A token made by an MCP token only narrows it.
    const folderToken = await tokenWith(['mcp:all:u/admin/*']);
    const made = await fetch(`${mesh.entryUrl}/api/w/main/tokens/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${folderToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scopes: ['mcp:all'] }),
    });
    expect(made.status).toBe(403);
  });

  it('flowmesh mcp token: a token of the scopes given, the URL and a client configuration that work', async () => {
    const made = await runFlowmesh(['mcp', 'token', '--scope', 'mcp:scripts:u/admin/echo', '--json'], {
      env: { FLOWMESH_URL: mesh.entryUrl!, FLOWMESH_TOKEN: adminToken },
    });
    expect([made.code, made.stderr]).toEqual([0, '']);
    const printed = JSON.parse(made.stdout) as {
      token: string;
      url: string;
      config: { mcpServers: { flowmesh: { url: string; headers: Record<string, string> } } };
    };
    expect(printed.url).toBe(mcpUrl().href);
    const { url, headers } = printed.config.mcpServers.flowmesh;
    expect(headers).toEqual({ Authorization: `Bearer ${printed.token}` });
    const client = new Client({ name: 'configured', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    clients.push(client);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['s-u_admin_echo']);
    // A scope that is not an MCP one is refused before anything is created.
    const refused = await runFlowmesh(['mcp', 'token', '--scope', 'jobs:read'], {
      env: { FLOWMESH_URL: mesh.entryUrl!, FLOWMESH_TOKEN: adminToken },
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('is not an MCP scope');
  });

  it('a call made as a task answers its handle at once; the task is the run, followed and cancelled as one', async () => {
    const client = await connect(await tokenWith(['mcp:all']));
    const slow = (await client.listTools()).tools.find((tool) => tool.name === 'f-u_admin_slow');
    expect(slow?.execution).toEqual({ taskSupport: 'optional' });
    const seen: string[] = [];
    let taskId = '';
    let result: CallToolResult | undefined;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'f-u_admin_slow', arguments: {} },
      undefined,
      { task: {}, timeout: 120_000 },
    )) {
      seen.push(message.type === 'taskStatus' ? `status:${message.task.status}` : message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') result = message.result as CallToolResult;
    }
    expect(seen[0]).toBe('taskCreated');
    expect(seen).toContain('status:working');
    expect(seen.slice(-2)).toEqual(['status:completed', 'result']);
    expect(JSON.parse(textOf(result!))).toEqual({ slept: true });
    // The task's id is its run's job id.
    const job = await fetch(`${mesh.entryUrl}/api/w/main/jobs_u/get/${taskId}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(await job.json()).toMatchObject({ id: taskId, trigger_kind: 'mcp', success: true });
    // Another user's token does not find it.
    const bob = await connect(await tokenWith(['mcp:all'], 'bob'));
    await expect(bob.experimental.tasks.getTask(taskId)).rejects.toThrow(/not found/i);

    // A failed run is a failed task whose status says why; a cancelled task cancels its run.
    const failed: string[] = [];
    let failedId = '';
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 's-u_admin_fails', arguments: {} },
      undefined,
      { task: {}, timeout: 120_000 },
    )) {
      if (message.type === 'taskCreated') failedId = message.task.taskId;
      failed.push(message.type === 'taskStatus' ? `status:${message.task.status}` : message.type);
    }
    expect(failed.slice(-2)).toEqual(['status:failed', 'error']);
    expect((await client.experimental.tasks.getTask(failedId)).statusMessage).toContain(
      'the tool broke on purpose',
    );
    const stream = client.experimental.tasks.callToolStream(
      { name: 'f-u_admin_slow', arguments: {} },
      undefined,
      {
        task: {},
      },
    );
    const created = (await stream.next()).value;
    if (created?.type !== 'taskCreated') throw new Error(`expected a task, got ${JSON.stringify(created)}`);
    await stream.return(undefined);
    await client.experimental.tasks.cancelTask(created.task.taskId);
    const cancelled = await waitFor(
      async () => {
        const task = await client.experimental.tasks.getTask(created.task.taskId);
        return task.status === 'cancelled' ? task : undefined;
      },
      { timeoutMs: 60_000, description: 'the task to be cancelled' },
    );
    expect(cancelled.status).toBe('cancelled');
  }, 180_000);

  it('sends progress notifications while a long run goes on, then its result', async () => {
    const client = await connect(await tokenWith(['mcp:flows:u/admin/*']));
    const progress: Progress[] = [];
    const result = (await client.callTool({ name: 'f-u_admin_slow', arguments: {} }, undefined, {
      onprogress: (update) => progress.push(update),
      timeout: 120_000,
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ slept: true });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((update) => update.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress[0].message).toMatch(/^job [0-9a-f-]{36} running for \d+ s$/);
  }, 120_000);
});
