import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resourceRegistryDefinition } from '@flowmesh/resource-registry/definition';
import { startTestService, type TestService } from '@flowmesh/testing';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPull } from '../src/commands/pull.command.js';
import { runPush, type SyncCommandIo } from '../src/commands/push.command.js';
import { registerVersionsCommand, runVersions } from '../src/commands/versions.command.js';

const ADMIN_TOKEN = `fm_test_${'k'.repeat(32)}`;
const SECRET = 'sk-cli-secret-value-123';

let registry: TestService;
let work: string;

class Captured implements SyncCommandIo {
  out = '';
  err = '';
  stdout = (text: string) => void (this.out += text);
  stderr = (text: string) => void (this.err += text);
  settings = (workspace?: string) => ({
    url: registry.url,
    token: ADMIN_TOKEN,
    workspace: workspace ?? 'main',
  });
  lines(): string[] {
    return this.out.trimEnd().split('\n');
  }
}

async function files(dir: string, entries: Record<string, string>): Promise<string> {
  for (const [name, text] of Object.entries(entries)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text, 'utf8');
  }
  return dir;
}

beforeAll(async () => {
  registry = await startTestService(resourceRegistryDefinition, {
    env: { FLOWMESH_ADMIN_TOKEN: ADMIN_TOKEN, FLOWMESH_ADMIN_EMAIL: 'admin@example.test' },
  });
  work = await mkdtemp(join(tmpdir(), 'flowmesh-sync-'));
});

afterAll(async () => {
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

const itemFiles = {
  'keys/openai_key.yaml': `kind: variable\npath: u/admin/openai_key\nis_secret: true\nvalue: ${SECRET}\n`,
  'openai.json': JSON.stringify({
    kind: 'resource',
    path: 'u/admin/openai',
    resource_type: 'openai',
    value: { api_key: '$var:u/admin/openai_key' },
  }),
  'scripts/lookup.ts': 'export function main(id: string) {\n  return { id };\n}\n',
  'scripts/lookup.script.yaml': 'kind: script\npath: u/admin/lookup\nsummary: look an invoice up\n',
  'scripts/calc.py': 'def main(x: int):\n    return x * 2\n',
  'scripts/calc.script.yaml': 'kind: script\npath: u/admin/calc\n',
  'report.flow.yaml': [
    'kind: flow',
    'path: u/admin/report',
    'summary: report',
    'value:',
    '  modules:',
    '    - id: a',
    '      value: { type: script, path: u/admin/lookup, input_transforms: {} }',
    '',
  ].join('\n'),
};

describe('flowmesh push, pull and versions against a running registry', () => {
  it('push creates every item from files and a directory, then finds them unchanged', async () => {
    const dir = await files(join(work, 'src'), itemFiles);
    const first = new Captured();
    expect(await runPush([dir], {}, first)).toBe(0);
    expect(first.err).toBe('');
    expect(first.lines()).toEqual([
      'created variable u/admin/openai_key',
      'created resource u/admin/openai',
      'created script u/admin/calc',
      'created script u/admin/lookup',
      'created flow u/admin/report',
    ]);
    const again = new Captured();
    expect(await runPush([dir], {}, again)).toBe(0);
    expect(again.lines().every((line) => line.startsWith('unchanged '))).toBe(true);

    const script = (await (
      await fetch(`${registry.url}/api/w/main/scripts/get/p/u/admin/calc`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).json()) as { language: string; content: string };
    expect(script).toMatchObject({ language: 'python3', content: itemFiles['scripts/calc.py'] });
  });

  it('a changed file updates its item, and versions lists the resource history', async () => {
    const dir = join(work, 'src');
    await writeFile(
      join(dir, 'openai.json'),
      JSON.stringify({
        kind: 'resource',
        path: 'u/admin/openai',
        resource_type: 'openai',
        value: { api_key: '$var:u/admin/openai_key', organization_id: 'org-1' },
      }),
    );
    const push = new Captured();
    expect(await runPush([join(dir, 'openai.json'), join(dir, 'scripts/lookup.ts')], {}, push)).toBe(0);
    expect(push.lines()).toEqual(['updated resource u/admin/openai', 'unchanged script u/admin/lookup']);

    const versions = new Captured();
    expect(await runVersions('u/admin/openai', {}, versions)).toBe(0);
    const lines = versions.lines();
    expect(lines[0]).toMatch(/^VERSION\s+CREATED_AT\s+BY\s+NOTE$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
      ['2', expect.stringMatching(/^\d{4}-\d\d-\d\dT/), 'admin'],
      ['1', expect.any(String), 'admin'],
    ]);
    const json = new Captured();
    await runVersions('u/admin/openai', { json: true }, json);
    expect((JSON.parse(json.out) as Array<{ version: number }>).map((v) => v.version)).toEqual([2, 1]);
  });

  it('pull writes files that push reads back unchanged, and never writes a secret value', async () => {
    const out = join(work, 'pulled');
    const pull = new Captured();
    expect(await runPull('u/admin', { out }, pull)).toBe(0);
    expect(pull.lines()).toHaveLength(5);
    expect(await readFile(join(out, 'u/admin/lookup.ts'), 'utf8')).toBe(itemFiles['scripts/lookup.ts']);
    expect(await readFile(join(out, 'u/admin/calc.py'), 'utf8')).toBe(itemFiles['scripts/calc.py']);
    const variable = await readFile(join(out, 'u/admin/openai_key.variable.yaml'), 'utf8');
    expect(variable).toContain('is_secret: true');
    const everything = (
      await Promise.all(
        pull
          .lines()
          .flatMap((line) => line.split(' -> ')[1].split(', '))
          .map((file) => readFile(file, 'utf8')),
      )
    ).join('\n');
    expect(everything).not.toContain(SECRET);

    const back = new Captured();
    expect(await runPush([out], {}, back)).toBe(0);
    expect(back.lines()).toEqual([
      'unchanged variable u/admin/openai_key',
      'unchanged resource u/admin/openai',
      'unchanged script u/admin/calc',
      'unchanged script u/admin/lookup',
      'unchanged flow u/admin/report',
    ]);
    const secret = (await (
      await fetch(`${registry.url}/api/w/main/variables/get_value/u/admin/openai_key`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).json()) as string;
    expect(secret).toBe(SECRET);

    const one = new Captured();
    expect(await runPull('u/admin/report', { out: join(work, 'one') }, one)).toBe(0);
    expect(one.lines()).toEqual([
      expect.stringMatching(/^pulled flow u\/admin\/report -> .*report\.flow\.yaml$/),
    ]);
    const none = new Captured();
    expect(await runPull('u/admin/nothing_here', { out: join(work, 'none') }, none)).toBe(1);
    expect(none.err).toBe(
      'NOT_FOUND: nothing at or under u/admin/nothing_here in workspace "main" that you may read\n',
    );
  });

  it('bad files: every problem is listed and nothing is pushed', async () => {
    const dir = await files(join(work, 'bad'), {
      'nokind.yaml': 'path: u/admin/x\nvalue: 1\n',
      'badpath.yaml': 'kind: resource\npath: admin/x\nresource_type: state\nvalue: 1\n',
      'orphan.script.yaml': 'kind: script\npath: u/admin/orphan\n',
      'good.yaml': 'kind: resource\npath: u/admin/should_not_exist\nresource_type: state\nvalue: 1\n',
      'broken.json': '{ "kind": ',
    });
    const push = new Captured();
    expect(await runPush([dir, join(work, 'missing.yaml')], {}, push)).toBe(1);
    expect(push.out).toBe('');
    const problems = push.err.trimEnd().split('\n');
    expect(problems).toEqual(
      expect.arrayContaining([
        `${join(work, 'missing.yaml')}: no such file or directory`,
        `${join(dir, 'nokind.yaml')}: does not say what it is: add kind: resource, variable, script, flow, schedule or http_trigger`,
        expect.stringMatching(
          /badpath\.yaml: path: path "admin\/x" must start with u\/<user>\/ or f\/<folder>\/$/,
        ),
        expect.stringMatching(
          /orphan\.script\.yaml: content: no code file orphan\.ts \(or \.py, \.sh, \.\.\.\) beside it$/,
        ),
        expect.stringMatching(/broken\.json: cannot be read as YAML or JSON: /),
        'nothing pushed: 5 problem(s)',
      ]),
    );
    const exists = await fetch(`${registry.url}/api/w/main/resources/exists/u/admin/should_not_exist`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(await exists.json()).toBe(false);
  });

  it('a refused item is reported with its code, the others are still pushed, and the exit code is 1', async () => {
    const dir = await files(join(work, 'mixed'), {
      'ok.yaml':
        'kind: resource\npath: u/admin/fine\nresource_type: mcp\nvalue: { url: "https://mcp.example.test" }\n',
      'invalid.yaml':
        'kind: resource\npath: u/admin/invalid\nresource_type: mcp\nvalue: { transport: carrier-pigeon }\n',
    });
    const push = new Captured();
    expect(await runPush([dir], {}, push)).toBe(1);
    expect(push.out).toBe('created resource u/admin/fine\n');
    expect(push.err).toMatch(
      /^failed resource u\/admin\/invalid: VALIDATION_FAILED: invalid value for resource type "mcp": /,
    );
  });

  it('is wired into the program; an unreachable mesh is one clear line', async () => {
    const io = new Captured();
    const program = new Command().exitOverride();
    registerVersionsCommand(program, io);
    const previous = process.exitCode;
    try {
      await program.parseAsync(['versions', 'u/admin/openai', '--json'], { from: 'user' });
      expect(process.exitCode).toBe(0);
    } finally {
      process.exitCode = previous;
    }
    expect(JSON.parse(io.out)).toHaveLength(2);

    const down: SyncCommandIo = {
      ...new Captured(),
      settings: () => ({ url: 'http://127.0.0.1:9', token: 't', workspace: 'main' }),
    };
    let err = '';
    down.stderr = (text) => void (err += text);
    expect(await runVersions('u/admin/openai', {}, down)).toBe(1);
    expect(err).toMatch(
      /^UNAVAILABLE: cannot reach the mesh at http:\/\/127\.0\.0\.1:9.* \(is it running\? FLOWMESH_URL\)\n$/,
    );
  });
});
