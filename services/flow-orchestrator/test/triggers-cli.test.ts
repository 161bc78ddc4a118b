import { mkdirSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { matchHttpRoute } from '@flowmesh/contracts';
import { runFlowmesh } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from './support/build-cli.js';
import { startRunApiMesh, type RunApiMesh } from './support/run-api-mesh.js';

/** Never due while the test runs: 03:00 on January 1st. */
const YEARLY = '0 0 3 1 1 *';
const SECRET = 'sk-route-key-never-pulled-123';

// `flowmesh schedules ...`, `flowmesh routes ...`, and `push`/`pull` of schedules and routes, as a
// user runs them: the built CLI in its own process, against the real registry and orchestrator
// behind one address (as the entry point serves them), with the environment a user sets.
describe('flowmesh schedules, routes, webhooks, push and pull of triggers', () => {
  let mesh: RunApiMesh;
  let entry: Server;
  let env: Record<string, string>;
  let work: string;

  beforeAll(async () => {
    buildCli();
    mesh = await startRunApiMesh();
    entry = await startEntry(mesh);
    env = {
      FLOWMESH_URL: `http://127.0.0.1:${(entry.address() as AddressInfo).port}`,
      FLOWMESH_TOKEN: mesh.tokens.admin,
    };
    work = await mkdtemp(join(tmpdir(), 'flowmesh-triggers-cli-'));
    const inMain = { actor: { token: mesh.tokens.admin }, workspace: 'main' };
    await mesh.items.createScript({
      ...inMain,
      path: 'u/admin/echo',
      summary: 'echo',
      language: 'bun',
      content: 'export async function main(body: unknown) { return { body }; }',
    });
    await mesh.items.createResourceType({ ...inMain, name: 'http_auth', schema: {} });
  }, 180_000);

  afterAll(async () => {
    await new Promise((resolve) => entry?.close(resolve));
    await mesh?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const cli = (args: string[], as = env) => runFlowmesh(args, { env: as });
  /** What the mesh holds, read over HTTP (not through the CLI under test). */
  const held = async (route: string) => {
    const answer = await mesh.http('GET', route, 'admin');
    return {
      status: answer.status,
      body: answer.status === 200 ? answer.json<Record<string, unknown>>() : {},
    };
  };
  const file = async (name: string, text: string) => {
    const path = join(work, name);
    mkdirSync(join(path, '..'), { recursive: true });
    await writeFile(path, text, 'utf8');
    return path;
  };

  it('schedules: create from a file, list as a table, get as JSON, disable, update, preview, delete', async () => {
    const created = await cli([
      'schedules',
      'create',
      await file(
        'nightly.yaml',
        `path: u/admin/cli_nightly\nschedule: "${YEARLY}"\ntimezone: Europe/Paris\nscript_path: u/admin/echo\nis_flow: false\nargs: { body: nightly }\n`,
      ),
    ]);
    expect([created.code, created.stdout, created.stderr]).toEqual([
      0,
      'created schedule u/admin/cli_nightly\n',
      '',
    ]);

    const table = await cli(['schedules', 'list']);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^PATH\s+SCHEDULE\s+TIMEZONE\s+RUNS\s+ENABLED$/);
    expect(rows).toEqual([
      expect.stringMatching(
        /^u\/admin\/cli_nightly\s+0 0 3 1 1 \*\s+Europe\/Paris\s+script u\/admin\/echo\s+yes$/,
      ),
    ]);

    expect((await cli(['schedules', 'disable', 'u/admin/cli_nightly'])).stdout).toBe(
      'disabled schedule u/admin/cli_nightly\n',
    );
    const got = await cli(['schedules', 'get', 'u/admin/cli_nightly', '--json']);
    expect(JSON.parse(got.stdout)).toMatchObject({
      args: { body: 'nightly' },
      enabled: false,
      permissioned_as: 'u/admin',
    });

    const updated = await cli([
      'schedules',
      'update',
      'u/admin/cli_nightly',
      await file('nightly-v2.yaml', `schedule: "0 0 4 1 1 *"\ntimezone: UTC\nenabled: true\nsummary: v2\n`),
    ]);
    expect([updated.code, updated.stderr]).toEqual([0, '']);
    expect((await held('schedules/get/u/admin/cli_nightly')).body).toMatchObject({
      schedule: '0 0 4 1 1 *',
      timezone: 'UTC',
      summary: 'v2',
      enabled: true,
      script_path: 'u/admin/echo',
    });

    const preview = await cli([
      'schedules',
      'preview',
      '0 30 9 * * *',
      '--timezone',
      'Asia/Tokyo',
      '--count',
      '3',
    ]);
    expect(preview.code).toBe(0);
    const [previewHeader, ...times] = preview.stdout.trimEnd().split('\n');
    expect(previewHeader).toMatch(/^UTC\s+Asia\/Tokyo$/);
    expect(times).toHaveLength(3);
    // Tokyo keeps UTC+9 all year (no summer time): 09:30 there is 00:30Z.
    for (const line of times) expect(line).toMatch(/T00:30:00(\.000)?Z\s+\d{4}-\d\d-\d\d 09:30:00$/);

    const deleted = await cli(['schedules', 'delete', 'u/admin/cli_nightly']);
    expect(deleted.stdout).toBe('deleted schedule u/admin/cli_nightly\n');
    const missing = await cli(['schedules', 'get', 'u/admin/cli_nightly']);
    expect([missing.code, missing.stdout]).toEqual([1, '']);
    expect(missing.stderr).toMatch(/^NOT_FOUND: /);
  });

  it("schedules: the API's message and exit 1 for a bad cron or timezone; a file's problems before anything is sent", async () => {
    const badCron = await cli([
      'schedules',
      'create',
      await file(
        'bad-cron.yaml',
        `path: u/admin/cli_bad\nschedule: "0 0 99 * * *"\ntimezone: UTC\nscript_path: u/admin/echo\nis_flow: false\n`,
      ),
    ]);
    expect(badCron.code).toBe(1);
    expect(badCron.stderr).toMatch(/^VALIDATION_FAILED: .*schedule/);

    const badZone = await cli(['schedules', 'preview', '0 0 12 * * *', '--timezone', 'Mars/Olympus']);
    expect(badZone.code).toBe(1);
    expect(badZone.stderr).toMatch(/^VALIDATION_FAILED: .*timezone/);

    const badFile = await cli([
      'schedules',
      'create',
      await file(
        'bad-file.yaml',
        `path: u/admin/cli_bad\nschedule: "${YEARLY}"\nscript_path: u/admin/echo\ncolour: red\n`,
      ),
    ]);
    expect(badFile.code).toBe(1);
    expect(badFile.stderr).toContain('bad-file.yaml: timezone: ');
    expect(badFile.stderr).toContain('bad-file.yaml: is_flow: ');
    expect(badFile.stderr).toContain('colour');
    expect((await held('schedules/exists/u/admin/cli_bad')).body).toBe(false);
  });

  it('routes: create from a file, list, disable (the route answers 404), enable, update with a rename, delete', async () => {
    const created = await cli([
      'routes',
      'create',
      await file(
        'hook.yaml',
        'kind: http_trigger\npath: u/admin/cli_hook\nroute_path: cli/hook\nhttp_method: post\nscript_path: u/admin/echo\nis_flow: false\nauthentication_method: none\nrequest_type: sync\n',
      ),
    ]);
    expect([created.code, created.stdout]).toEqual([
      0,
      'created route u/admin/cli_hook: POST /api/r/cli/hook\n',
    ]);
    const call = () =>
      fetch(`${env.FLOWMESH_URL}/api/r/cli/hook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ body: 'hi' }),
      });
    expect(await (await call()).json()).toEqual({ body: 'hi' });

    const table = await cli(['routes', 'list']);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^PATH\s+METHOD\s+ROUTE\s+AUTH\s+TYPE\s+RUNS\s+MODE$/);
    expect(rows).toEqual([
      expect.stringMatching(
        /^u\/admin\/cli_hook\s+POST\s+\/api\/r\/cli\/hook\s+none\s+sync\s+script u\/admin\/echo\s+enabled$/,
      ),
    ]);

    expect((await cli(['routes', 'disable', 'u/admin/cli_hook'])).stdout).toBe(
      'disabled route u/admin/cli_hook\n',
    );
    expect((await call()).status).toBe(404);
    await cli(['routes', 'enable', 'u/admin/cli_hook']);
    expect((await call()).status).toBe(200);

    const updated = await cli([
      'routes',
      'update',
      'u/admin/cli_hook',
      await file(
        'hook-v2.json',
        JSON.stringify({
          path: 'u/admin/cli_hook_v2',
          route_path: 'cli/hook',
          http_method: 'post',
          script_path: 'u/admin/echo',
          is_flow: false,
          authentication_method: 'none',
          request_type: 'async',
        }),
      ),
    ]);
    expect([updated.code, updated.stdout]).toEqual([0, 'updated route u/admin/cli_hook_v2\n']);
    const got = await cli(['routes', 'get', 'u/admin/cli_hook_v2']);
    expect(got.stdout).toMatch(/^request_type\s+async$/m);
    expect(got.stdout).toMatch(/^served_at\s+\/api\/r\/cli\/hook$/m);
    expect((await held('http_triggers/get/u/admin/cli_hook')).status).toBe(404);

    expect((await cli(['routes', 'delete', 'u/admin/cli_hook_v2'])).code).toBe(0);
    expect((await call()).status).toBe(404);
  });

  it('webhooks token: a token that runs its one script by URL (token in the query), refused elsewhere', async () => {
    const made = await cli(['webhooks', 'token', 'u/admin/echo', '--script', '--json']);
    expect([made.code, made.stderr]).toEqual([0, '']);
    const { token, sync, async } = JSON.parse(made.stdout) as { token: string; sync: string; async: string };
    expect(sync).toBe(`${env.FLOWMESH_URL}/api/w/main/jobs/run_wait_result/p/u/admin/echo`);
    expect(async).toBe(`${env.FLOWMESH_URL}/api/w/main/jobs/run/p/u/admin/echo`);
    const post = (url: string) =>
      fetch(`${url}?token=${encodeURIComponent(token)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ body: 'from outside' }),
      });
    const ran = await post(sync);
    expect([ran.status, await ran.json()]).toEqual([200, { body: 'from outside' }]);
    await mesh.items.createFlow({
      actor: { token: mesh.tokens.admin },
      workspace: 'main',
      path: 'u/admin/cli_elsewhere',
      summary: 'elsewhere',
      value: { modules: [] },
    });
    const elsewhere = await post(
      `${env.FLOWMESH_URL}/api/w/main/jobs/run_wait_result/f/u/admin/cli_elsewhere`,
    );
    expect([401, 403]).toContain(elsewhere.status);
    const list = await fetch(`${env.FLOWMESH_URL}/api/w/main/tokens/list`, {
      headers: { authorization: `Bearer ${mesh.tokens.admin}` },
    });
    expect(await list.json()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ label: 'webhook u/admin/echo', scopes: ['jobs:run:scripts:u/admin/echo'] }),
      ]),
    );
  });

  it('push creates a flow, its schedule and a route from files, then finds them unchanged; pull writes them back without a secret', async () => {
    const src = join(work, 'src');
    await file(
      'src/key.variable.yaml',
      `kind: variable\npath: u/admin/cli_key\nis_secret: true\nvalue: ${SECRET}\n`,
    );
    await file(
      'src/key.resource.yaml',
      'kind: resource\npath: u/admin/cli_api_key\nresource_type: http_auth\nvalue: { api_key_header: x-api-key, api_key_secret: "$var:u/admin/cli_key" }\n',
    );
    await file(
      'src/report.flow.yaml',
      'kind: flow\npath: u/admin/cli_report\nsummary: report\nvalue:\n  modules: []\n',
    );
    await file(
      'src/report.schedule.yaml',
      `kind: schedule\npath: u/admin/cli_report_nightly\nschedule: "${YEARLY}"\ntimezone: UTC\nscript_path: u/admin/cli_report\nis_flow: true\nargs: { day: yesterday }\non_failure: script/u/admin/echo\n`,
    );
    await file(
      'src/report.http_trigger.yaml',
      'kind: http_trigger\npath: u/admin/cli_report_route\nroute_path: cli/report\nhttp_method: get\nscript_path: u/admin/cli_report\nis_flow: true\nauthentication_method: api_key\nauthentication_resource_path: u/admin/cli_api_key\n',
    );
    const first = await cli(['push', src]);
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(first.stdout.trimEnd().split('\n')).toEqual([
      'created variable u/admin/cli_key',
      'created resource u/admin/cli_api_key',
      'created flow u/admin/cli_report',
      'created schedule u/admin/cli_report_nightly',
      'created http_trigger u/admin/cli_report_route',
    ]);
    const again = await cli(['push', src]);
    expect(
      again.stdout
        .trimEnd()
        .split('\n')
        .every((line) => line.startsWith('unchanged ')),
    ).toBe(true);

    const out = join(work, 'pulled');
    const pulled = await cli(['pull', 'u/admin', '--out', out]);
    expect([pulled.code, pulled.stderr]).toEqual([0, '']);
    const schedule = await readFile(join(out, 'u/admin/cli_report_nightly.schedule.yaml'), 'utf8');
    expect(schedule).toContain('kind: schedule');
    expect(schedule).toContain('on_failure: script/u/admin/echo');
    const route = await readFile(join(out, 'u/admin/cli_report_route.http_trigger.yaml'), 'utf8');
    expect(route).toContain('authentication_resource_path: u/admin/cli_api_key');
    const everything = (await Promise.all((await listFiles(out)).map((path) => readFile(path, 'utf8')))).join(
      '\n',
    );
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(mesh.tokens.admin);
    expect(everything).not.toMatch(/permissioned_as|edited_by|email|sealed/);

    // What pull wrote pushes back unchanged: nothing new is written.
    const roundTrip = await cli(['push', out]);
    expect([roundTrip.code, roundTrip.stderr]).toEqual([0, '']);
    expect(roundTrip.stdout).not.toMatch(/^(created|updated) /m);

    await writeFile(
      join(out, 'u/admin/cli_report_nightly.schedule.yaml'),
      schedule.replace('day: yesterday', 'day: today'),
      'utf8',
    );
    const changed = await cli(['push', join(out, 'u/admin/cli_report_nightly.schedule.yaml')]);
    expect(changed.stdout).toBe('updated schedule u/admin/cli_report_nightly\n');
    expect((await held('schedules/get/u/admin/cli_report_nightly')).body).toMatchObject({
      args: { day: 'today' },
    });
  });

  it('push: a bad schedule or route file pushes nothing; a schedule whose target changed is refused, the rest pushed', async () => {
    const bad = join(work, 'bad');
    await file('bad/a.flow.yaml', 'kind: flow\npath: u/admin/cli_never\nvalue:\n  modules: []\n');
    await file('bad/b.schedule.yaml', 'kind: schedule\npath: u/admin/cli_never_s\nschedule: "* * * * * *"\n');
    await file('bad/c.http_trigger.yaml', 'kind: http_trigger\npath: u/admin/cli_never_r\nroute_path: /x\n');
    const refused = await cli(['push', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('b.schedule.yaml: timezone: ');
    expect(refused.stderr).toContain('c.http_trigger.yaml: route_path: ');
    expect(refused.stderr).toMatch(/nothing pushed: \d+ problem\(s\)\n$/);
    expect((await held('schedules/exists/u/admin/cli_never_s')).body).toBe(false);
    const flowExists = await fetch(`${mesh.registry.url}/api/w/main/flows/exists/u/admin/cli_never`, {
      headers: { authorization: `Bearer ${mesh.tokens.admin}` },
    });
    expect(await flowExists.json()).toBe(false);

    const moved = await cli([
      'push',
      await file(
        'moved/report.schedule.yaml',
        `kind: schedule\npath: u/admin/cli_report_nightly\nschedule: "${YEARLY}"\ntimezone: UTC\nscript_path: u/admin/echo\nis_flow: false\n`,
      ),
      await file(
        'moved/other.schedule.yaml',
        `kind: schedule\npath: u/admin/cli_other\nschedule: "${YEARLY}"\ntimezone: UTC\nscript_path: u/admin/echo\nis_flow: false\nenabled: false\n`,
      ),
    ]);
    expect(moved.code).toBe(1);
    expect(moved.stderr).toMatch(
      /^failed schedule u\/admin\/cli_report_nightly: VALIDATION_FAILED: script_path: /,
    );
    expect(moved.stdout).toBe('created schedule u/admin/cli_other\n');
    expect((await held('schedules/get/u/admin/cli_other')).body).toMatchObject({ enabled: false });
    // A file that leaves fields out (no args: the mesh keeps {}) is unchanged the second time.
    const again = await cli(['push', join(work, 'moved/other.schedule.yaml')]);
    expect([again.code, again.stdout]).toEqual([0, 'unchanged schedule u/admin/cli_other\n']);
  });
});

/**
 * The entry point as `flowmesh start` serves it, for this test's two services: a path goes to the
 * service the contracts' route table names.
 */
async function startEntry(mesh: RunApiMesh): Promise<Server> {
  const server = createServer((req, res) => {
    const route = matchHttpRoute(new URL(req.url ?? '/', 'http://entry').pathname);
    const target = new URL(
      req.url ?? '/',
      route?.service === 'flow-orchestrator' ? mesh.orchestrator.url : mesh.registry.url,
    );
    const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}
