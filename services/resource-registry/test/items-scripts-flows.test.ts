import type { RegistryItemsClient, ValidationIssue } from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, countOf, errorOf, EventTap, httpText, itemsClient } from './support/items-support.js';
import { startRegistryCast, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;
let items: RegistryItemsClient;
let events: EventTap;

beforeAll(async () => {
  cast = await startRegistryCast();
  items = itemsClient(cast);
  events = new EventTap(cast);
});

afterAll(async () => {
  events?.stop();
  await cast?.stop();
});

const owner = () => as(cast, cast.actors.owner);
const token = () => cast.actors.owner.token;
const script = (content: string) => ({
  language: 'bun' as const,
  content,
  summary: 'adds',
  schema: { type: 'object', properties: { a: { type: 'number' } } },
});

describe('scripts', () => {
  it('versions are immutable and named by hash; the same code twice is the same version', async () => {
    const first = await items.createScript({
      ...owner(),
      path: 'f/team/add',
      ...script('export const main = (a) => a + 1;'),
    });
    expect(first).toMatchObject({
      path: 'f/team/add',
      created: true,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
    });
    const second = await items.updateScript({
      ...owner(),
      path: 'f/team/add',
      parent_hash: first.hash,
      ...script('export const main = (a) => a + 2;'),
    });
    expect(second.hash).not.toBe(first.hash);
    const again = await items.updateScript({
      ...owner(),
      path: 'f/team/add',
      ...script('export const main = (a) => a + 2;'),
    });
    expect(again).toEqual({ path: 'f/team/add', hash: second.hash, created: false });

    const old = await items.getScriptByHash({ ...as(cast, cast.actors.reader), hash: first.hash });
    expect(old).toMatchObject({
      path: 'f/team/add',
      content: 'export const main = (a) => a + 1;',
      is_current: false,
      parent_hash: null,
    });
    expect(await items.getScript({ ...owner(), path: 'f/team/add' })).toMatchObject({
      hash: second.hash,
      parent_hash: first.hash,
      is_current: true,
    });
    expect(await items.getScript({ ...owner(), path: 'f/team/add', hash: first.hash })).toMatchObject({
      hash: first.hash,
    });
    const { versions } = await items.listScriptVersions({ ...owner(), path: 'f/team/add' });
    expect(versions.map((v) => v.hash)).toEqual([second.hash, first.hash]);
  });

  it('saving old code makes its version current again without a new row', async () => {
    const a = await items.createScript({ ...owner(), path: 'u/owner/flip', ...script('A') });
    const b = await items.updateScript({ ...owner(), path: 'u/owner/flip', ...script('B') });
    const back = await items.updateScript({ ...owner(), path: 'u/owner/flip', ...script('A') });
    expect(back).toEqual({ path: 'u/owner/flip', hash: a.hash, created: false });
    expect((await items.listScriptVersions({ ...owner(), path: 'u/owner/flip' })).versions).toHaveLength(2);
    expect((await items.getScript({ ...owner(), path: 'u/owner/flip' })).hash).toBe(a.hash);
    expect(b.hash).not.toBe(a.hash);
  });

  it('an editor working on an older version gets a conflict instead of overwriting', async () => {
    const a = await items.createScript({ ...owner(), path: 'u/owner/race', ...script('1') });
    await items.updateScript({ ...owner(), path: 'u/owner/race', parent_hash: a.hash, ...script('2') });
    expect(
      await errorOf(() =>
        items.updateScript({ ...owner(), path: 'u/owner/race', parent_hash: a.hash, ...script('3') }),
      ),
    ).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(
        /^script u\/owner\/race changed since version [0-9a-f]{64}: its current version is [0-9a-f]{64}$/,
      ) as string,
    });
    expect(
      (await errorOf(() => items.createScript({ ...owner(), path: 'u/owner/race', ...script('4') }))).code,
    ).toBe('CONFLICT');
  });

  it('a version of a script one may not read answers as a hash that does not exist', async () => {
    const { hash } = await items.createScript({ ...owner(), path: 'u/owner/hidden', ...script('x') });
    const stranger = as(cast, cast.actors.stranger);
    const hidden = await errorOf(() => items.getScriptByHash({ ...stranger, hash }));
    const absent = await errorOf(() => items.getScriptByHash({ ...stranger, hash: 'a'.repeat(64) }));
    expect(hidden.code).toBe('NOT_FOUND');
    expect(hidden.message.replace(hash, 'H')).toBe(absent.message.replace('a'.repeat(64), 'H'));
  });

  it('over HTTP as Windmill: scripts/create answers 201 with the hash, for a new path and for a new version', async () => {
    const created = await httpText(cast, 'POST', '/api/w/main/scripts/create', token(), {
      path: 'f/team/http_script',
      summary: 'greets',
      content: 'export function main(name: string) { return `hi ${name}`; }',
      language: 'bun',
      schema: { type: 'object', properties: { name: { type: 'string' } } },
      kind: 'script',
    });
    expect(created.status).toBe(201);
    expect(created.text).toMatch(/^[0-9a-f]{64}$/);
    const next = await httpText(cast, 'POST', '/api/w/main/scripts/create', token(), {
      path: 'f/team/http_script',
      parent_hash: created.text,
      summary: 'greets loudly',
      content: 'export function main(name: string) { return `HI ${name}`; }',
      language: 'bun',
    });
    expect(next.status).toBe(201);
    const byPath = await cast.http(
      'GET',
      '/api/w/main/scripts/get/p/f/team/http_script',
      cast.actors.reader.token,
    );
    expect(byPath.body).toMatchObject({
      hash: next.text,
      parent_hash: created.text,
      summary: 'greets loudly',
      language: 'bun',
    });
    const byHash = await cast.http(
      'GET',
      `/api/w/main/scripts/get/h/${created.text}`,
      cast.actors.reader.token,
    );
    expect(byHash.body).toMatchObject({ hash: created.text, is_current: false });
    expect(
      (await cast.http('GET', '/api/w/main/scripts/list', cast.actors.member.token)).body,
    ).toContainEqual(expect.objectContaining({ path: 'f/team/http_script', hash: next.text }));
    const unsupported = await cast.http('POST', '/api/w/main/scripts/create', token(), {
      path: 'f/team/cobol',
      content: '',
      language: 'cobol',
    });
    expect(unsupported.status).toBe(400);
    expect(JSON.stringify(unsupported.body)).toContain('language');

    expect(
      (await httpText(cast, 'DELETE', '/api/w/main/scripts/delete/p/f/team/http_script', token())).status,
    ).toBe(200);
    expect((await cast.http('GET', `/api/w/main/scripts/get/h/${created.text}`, token())).status).toBe(404);
    expect((await cast.http('GET', '/api/w/main/scripts/exists/p/f/team/http_script', token())).body).toBe(
      false,
    );
  });

  it("a 200 KB lockfile travels over HTTP (past Express's default body limit); past the registry's limit is its own 413", async () => {
    const lock = '# lock\n'.repeat((200 * 1024) / 7);
    const saved = await httpText(cast, 'POST', '/api/w/main/scripts/create', token(), {
      path: 'u/owner/locked',
      content: 'x',
      language: 'python3',
      lock,
    });
    expect(saved.status).toBe(201);
    expect((await items.getScript({ ...owner(), path: 'u/owner/locked' })).lock).toBe(lock);
    const huge = await cast.http('POST', '/api/w/main/scripts/create', token(), {
      path: 'u/owner/huge',
      content: 'x'.repeat(600 * 1024),
      language: 'bash',
    });
    expect(huge).toMatchObject({
      status: 413,
      body: {
        code: 'LIMIT_EXCEEDED',
        message: expect.stringContaining(
          'script u/owner/huge (content, lock and schema) is 614400 bytes',
        ) as string,
      },
    });
  });

  it('events name the new current hash', async () => {
    const { hash } = await items.createScript({ ...owner(), path: 'u/owner/evented', ...script('e') });
    const [event] = await waitFor(() =>
      events.of('u/owner/evented').length ? events.of('u/owner/evented') : undefined,
    );
    expect(event).toMatchObject({
      kind: 'script',
      change: 'created',
      workspace: 'main',
      path: 'u/owner/evented',
      hash,
    });
  });
});

const hello = {
  modules: [
    {
      id: 'greet',
      value: {
        type: 'rawscript',
        language: 'bun',
        content: 'export const main = (name) => `Hello, ${name}!`;',
        input_transforms: { name: { type: 'javascript', expr: 'flow_input.name' } },
      },
    },
    { id: 'add', value: { type: 'script', path: 'f/team/add', input_transforms: {} } },
  ],
};

describe('flows', () => {
  it('created over HTTP with {path, summary, value, schema}: 201 and the path; read back as written', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string' } } };
    const created = await httpText(cast, 'POST', '/api/w/main/flows/create', token(), {
      path: 'f/team/hello',
      summary: 'Hello',
      value: hello,
      schema,
    });
    expect(created).toMatchObject({ status: 201, text: 'f/team/hello' });
    const got = await cast.http('GET', '/api/w/main/flows/get/f/team/hello', cast.actors.reader.token);
    expect(got.body).toMatchObject({
      path: 'f/team/hello',
      summary: 'Hello',
      value: hello,
      schema,
      created_by: 'owner',
    });
    expect((await cast.http('GET', '/api/w/main/flows/exists/f/team/hello', token())).body).toBe(true);
  });

  it('an invalid flow is refused with every OpenFlow error and its path, and nothing is written', async () => {
    const before = [
      await countOf(cast, 'flow'),
      await countOf(cast, 'flow_version'),
      await countOf(cast, 'outbox_message'),
    ];
    const value = {
      modules: [
        { id: 'a', value: { type: 'identity' } },
        { id: 'a', value: { type: 'rawscript', language: 'cobol', content: '', input_transforms: {} } },
        { id: 'b', value: { type: 'nope' } },
      ],
    };
    const answer = await cast.http('POST', '/api/w/main/flows/create', token(), {
      path: 'f/team/broken',
      summary: 'broken',
      value,
    });
    expect(answer.status).toBe(400);
    const body = answer.body as { code: string; message: string; details: { issues: ValidationIssue[] } };
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.message).toMatch(/^invalid flow f\/team\/broken: value\.modules\[\d\]/);
    const paths = body.details.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining(['value.modules[1].value.language', 'value.modules[2].value.type']),
    );
    expect(paths.some((path) => path.startsWith('value.modules[1].id'))).toBe(true);
    expect([
      await countOf(cast, 'flow'),
      await countOf(cast, 'flow_version'),
      await countOf(cast, 'outbox_message'),
    ]).toEqual(before);
  });

  it('every save is a version; an old one reads back; rename carries the history along', async () => {
    const v1 = await items.createFlow({ ...owner(), path: 'u/owner/steps', summary: 'one', value: hello });
    const changed = { modules: [...hello.modules, { id: 'done', value: { type: 'identity' } }] };
    const v2 = await items.updateFlow({ ...owner(), path: 'u/owner/steps', summary: 'two', value: changed });
    expect(v2.version_id).toBeGreaterThan(v1.version_id);
    const old = await cast.http('GET', `/api/w/main/flows/get/v/${v1.version_id}/p/u/owner/steps`, token());
    expect(old.body).toMatchObject({ summary: 'one', value: hello, version_id: v1.version_id });
    expect((await items.getFlow({ ...owner(), path: 'u/owner/steps' })).value).toEqual(changed);

    expect(
      (
        await httpText(cast, 'POST', '/api/w/main/flows/update/u/owner/steps', token(), {
          path: 'u/owner/renamed',
          summary: 'three',
          value: changed,
        })
      ).status,
    ).toBe(200);
    const history = (await cast.http('GET', '/api/w/main/flows/history/p/u/owner/renamed', token()))
      .body as Array<{ id: number }>;
    expect(history.map((v) => v.id)).toHaveLength(3);
    expect((await cast.http('GET', '/api/w/main/flows/get/u/owner/steps', token())).status).toBe(404);
    const seen = await waitFor(() => {
      const found = events.of('u/owner/renamed');
      return found.length ? found : undefined;
    });
    expect(seen[0]).toMatchObject({
      kind: 'flow',
      change: 'updated',
      path: 'u/owner/renamed',
      previous_path: 'u/owner/steps',
    });
  });

  it('list shows what the caller may read; delete removes the flow and its versions', async () => {
    const listed = (await cast.http('GET', '/api/w/main/flows/list', cast.actors.stranger.token))
      .body as Array<{ path: string }>;
    expect(listed.map((flow) => flow.path)).not.toContain('f/team/hello');
    expect(
      (
        (await cast.http('GET', '/api/w/main/flows/list', cast.actors.member.token)).body as Array<{
          path: string;
        }>
      ).map((f) => f.path),
    ).toContain('f/team/hello');
    expect((await httpText(cast, 'DELETE', '/api/w/main/flows/delete/f/team/hello', token())).status).toBe(
      200,
    );
    const [versions] = await cast.dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM flow_version WHERE path = 'f/team/hello'`,
    );
    expect(versions?.n).toBe(0);
  });
});
