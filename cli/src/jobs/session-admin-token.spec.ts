import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionAdminToken } from './session-admin-token.js';

describe('sessionAdminToken', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flowmesh-admin-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uses FLOWMESH_ADMIN_TOKEN when set, and writes nothing', async () => {
    const given = 'x'.repeat(30);
    expect(await sessionAdminToken({ FLOWMESH_ADMIN_TOKEN: given }, dir)).toEqual({
      token: given,
      file: undefined,
    });
  });

  it('otherwise generates one into .flowmesh/admin-token, readable by the user only, and keeps it for the next start', async () => {
    const first = await sessionAdminToken({}, dir);
    expect(first.token).toMatch(/^fm_session_[\w-]{40,}$/);
    expect(first.file).toBe(join(dir, '.flowmesh', 'admin-token'));
    expect((await readFile(first.file ?? '', 'utf8')).trim()).toBe(first.token);
    expect((await stat(first.file ?? '')).mode & 0o777).toBe(0o600);
    expect(await sessionAdminToken({}, dir)).toEqual(first);
  });
});
