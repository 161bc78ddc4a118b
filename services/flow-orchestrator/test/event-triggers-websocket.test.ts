import type { AddressInfo } from 'node:net';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { startEventTriggerMesh, WORKSPACE, type EventTriggerMesh } from './support/event-trigger-mesh.js';

/**
 * WebSocket triggers against a server this test starts on 127.0.0.1 (allowed to the orchestrator
 * by `FLOWMESH_OUTBOUND_ALLOW_CIDRS=127.0.0.1/32`, as the SSRF guard refuses loopback otherwise):
 * Windmill's initial messages on every connection, its filters, `{msg}` and the event with the
 * URL, a server that hangs up shown as `error` then listened to again.
 */
let m: EventTriggerMesh;
let server: WebSocketServer;
let port: number;
const received: string[] = [];
const clients: WebSocket[] = [];

beforeAll(async () => {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
  server.on('connection', (socket) => {
    clients.push(socket);
    socket.on('message', (data) => received.push(Buffer.from(data as Buffer).toString('utf8')));
  });
  m = await startEventTriggerMesh({ orchestratorEnv: { FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' } });
  await m.items.createScript({
    actor: m.actor,
    workspace: WORKSPACE,
    path: 'u/admin/ws_event',
    summary: 'the event as it came',
    language: 'bun',
    content: [
      'export function preprocessor(event: any) { return { seen: event }; }',
      'export async function main(seen: unknown) { return seen; }',
    ].join('\n'),
  });
  await m.items.createScript({
    actor: m.actor,
    workspace: WORKSPACE,
    path: 'u/admin/ws_msg',
    summary: 'the message',
    language: 'bun',
    content: 'export async function main(msg: string) { return msg; }',
  });
}, 240_000);

afterAll(async () => {
  for (const client of clients) client.terminate();
  await new Promise((resolve) => server?.close(resolve));
  await m?.stop();
}, 180_000);

const open = () => clients.filter((client) => client.readyState === client.OPEN);

describe('WebSocket triggers', () => {
  it('sends its initial messages, runs each text message that passes the filters with Windmill’s event', async () => {
    const created = await m.http('POST', 'websocket_triggers/create', {
      path: 'u/admin/feed',
      script_path: 'u/admin/ws_event',
      is_flow: false,
      url: `ws://127.0.0.1:${port}/feed`,
      initial_messages: [{ raw_message: '{"subscribe":"orders"}' }, { raw_message: '"hello"' }],
      filters: [{ key: 'type', value: 'order' }],
      can_return_message: false,
    });
    expect([created.status, created.text]).toEqual([201, 'u/admin/feed']);
    await m.untilState('websocket', 'u/admin/feed', 'listening');
    await waitFor(() => (received.length >= 2 ? true : undefined), { description: 'the initial messages' });
    expect(received).toEqual(['{"subscribe":"orders"}', 'hello']);
    const [socket] = open();
    socket.send(JSON.stringify({ type: 'order', id: 1 }));
    socket.send(JSON.stringify({ type: 'heartbeat' }));
    socket.send('not json');
    socket.send(JSON.stringify({ type: 'order', id: 2 }));
    const runs = await m.endedRuns('websocket', 'u/admin/feed', 2);
    const seen = (await m.resultsOf(runs)) as Array<Record<string, unknown>>;
    expect(seen.map((event) => (JSON.parse(event.msg as string) as { id: number }).id).sort()).toEqual([
      1, 2,
    ]);
    expect(seen[0]).toMatchObject({ kind: 'websocket', url: `ws://127.0.0.1:${port}/feed` });
    expect(await m.runsOf('websocket', 'u/admin/feed')).toHaveLength(2);
  });

  it('says error when the server hangs up, connects again with its initial messages, and runs `main(msg)`', async () => {
    await m.http('POST', 'websocket_triggers/setmode/u/admin/feed', { mode: 'disabled' });
    await m.triggers.create({
      actor: m.actor,
      workspace: WORKSPACE,
      kind: 'websocket',
      trigger: {
        path: 'u/admin/plain',
        script_path: 'u/admin/ws_msg',
        is_flow: false,
        url: `ws://127.0.0.1:${port}/plain`,
        initial_messages: [{ raw_message: 'subscribe plain' }],
      },
    });
    await m.untilState('websocket', 'u/admin/plain', 'listening');
    await waitFor(() => (open().length === 1 ? true : undefined), { description: 'one open connection' });
    open()[0].close(1011, 'going away');
    const failing = await m.untilState('websocket', 'u/admin/plain', 'error');
    expect(failing.error).toContain('1011');
    expect(failing.error_since).toBeTruthy();
    await m.untilState('websocket', 'u/admin/plain', 'listening');
    await waitFor(
      () => (received.filter((text) => text === 'subscribe plain').length >= 2 ? true : undefined),
      {
        description: 'the initial message sent again on the new connection',
      },
    );
    const socket = await waitFor(() => open()[0], { description: 'the new connection' });
    socket.send('plain text');
    const [run] = await m.endedRuns('websocket', 'u/admin/plain', 1);
    expect(await m.resultOf(run.id)).toBe('plain text');
  });

  it('refuses an address the SSRF guard does not allow, and answers with it on the trigger', async () => {
    const refused = await m.http('POST', 'websocket_triggers/create', {
      path: 'u/admin/bad',
      script_path: 'u/admin/ws_msg',
      is_flow: false,
      url: '$script:u/admin/url_maker',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('url');
    await m.triggers.create({
      actor: m.actor,
      workspace: WORKSPACE,
      kind: 'websocket',
      trigger: {
        path: 'u/admin/internal',
        script_path: 'u/admin/ws_msg',
        is_flow: false,
        url: `ws://127.0.0.2:${port}/`,
      },
    });
    const failing = await m.untilState('websocket', 'u/admin/internal', 'error');
    expect(failing.error).toMatch(/127\.0\.0\.2/);
    expect(failing.error).toMatch(/refused|not allowed|loopback/i);
  });
});
