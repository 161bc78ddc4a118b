import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItemFiles } from './read-item-files.js';

let root: string;

async function files(entries: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(root, 'case-'));
  for (const [name, text] of Object.entries(entries)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text, 'utf8');
  }
  return dir;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'flowmesh-item-files-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('readItemFiles: schedules and HTTP routes', () => {
  it('reads kind: schedule and kind: http_trigger files as their contracts say', async () => {
    const dir = await files({
      'a.yaml':
        'kind: schedule\npath: u/ada/nightly\nschedule: "0 0 3 * * *"\ntimezone: UTC\nscript_path: u/ada/job\nis_flow: false\n',
      'b.json': JSON.stringify({
        kind: 'http_trigger',
        path: 'u/ada/hook',
        route_path: 'orders/:id',
        http_method: 'post',
        script_path: 'u/ada/job',
        is_flow: true,
        authentication_method: 'none',
      }),
    });
    const { items, problems } = await readItemFiles([dir]);
    expect(problems).toEqual([]);
    expect(items.map((item) => [item.document.kind, item.document.path])).toEqual([
      ['schedule', 'u/ada/nightly'],
      ['http_trigger', 'u/ada/hook'],
    ]);
  });

  it("reads Windmill's files as wmill sync writes them: the kind from the name, the path from the place", async () => {
    const dir = await files({
      'f/ops/nightly.schedule.yaml': [
        'schedule: "0 0 3 * * *"',
        'timezone: Etc/UTC',
        'script_path: f/ops/report',
        'is_flow: true',
        'args: {}',
        'enabled: false',
        // What only the server sets is left out rather than refused.
        'edited_by: ada',
        'email: ada@example.test',
        'extra_perms: {}',
        '',
      ].join('\n'),
      'u/ada/orders.http_trigger.yaml':
        'route_path: orders\nhttp_method: post\nscript_path: u/ada/job\nis_flow: false\nauthentication_method: windmill\nis_async: true\nroute_path_key: orders\n',
    });
    const { items, problems } = await readItemFiles([dir]);
    expect(problems).toEqual([]);
    expect(items.map((item) => item.document)).toEqual([
      expect.objectContaining({
        kind: 'schedule',
        path: 'f/ops/nightly',
        enabled: false,
        timezone: 'Etc/UTC',
      }),
      expect.objectContaining({ kind: 'http_trigger', path: 'u/ada/orders', is_async: true }),
    ]);
  });

  it('names every problem of a trigger file by its field, and a path its place cannot give', async () => {
    const dir = await files({
      'x.yaml':
        'kind: schedule\npath: u/ada/s\nschedule: "61 * * * * * * *"\nscript_path: u/ada/job\nis_flow: false\n',
      'y.yaml':
        'kind: http_trigger\npath: u/ada/r\nroute_path: /lead\nhttp_method: trace\nscript_path: u/ada/job\nis_flow: false\nauthentication_method: custom_script\nis_static_website: true\n',
      'nowhere.schedule.yaml':
        'schedule: "0 0 3 * * *"\ntimezone: UTC\nscript_path: u/ada/job\nis_flow: false\n',
    });
    const { items, problems } = await readItemFiles([dir]);
    expect(items).toEqual([]);
    const about = (file: string) =>
      problems.filter((p) => p.startsWith(join(dir, file))).map((p) => p.split(': ')[1]);
    expect(about('x.yaml').sort()).toEqual(['schedule', 'timezone']);
    expect(about('y.yaml').sort()).toEqual([
      'authentication_method',
      'http_method',
      'is_static_website',
      'route_path',
    ]);
    expect(about('nowhere.schedule.yaml')).toEqual(['path']);
  });
});
