import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MESH_OPERATOR_USER, MESH_PROCESSES } from '@flowmesh/contracts';
import { NATS_SERVER_BINARY, natsServerInstalled } from '@flowmesh/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { cliNatsUrl, localNatsAuthDir, prepareLocalNatsAuth } from '../src/mesh/local-nats-auth.js';

describe('the NATS users flowmesh start writes to .flowmesh/nats-auth', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'fm-nats-auth-'));
  const options = { workDir, prefix: 'fm', host: '127.0.0.1', port: 4322 };
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('keeps each password across starts, readable by its owner only', async () => {
    const first = await prepareLocalNatsAuth(options);
    const second = await prepareLocalNatsAuth(options);
    for (const user of [...MESH_PROCESSES.map((p) => p.name), MESH_OPERATOR_USER]) {
      expect(second.urlOf(user)).toBe(first.urlOf(user));
      expect(new URL(first.urlOf(user)).username).toBe(user);
    }
    const dir = localNatsAuthDir(workDir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(first.configFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'resource-registry.password')).mode & 0o777).toBe(0o600);
  });

  it('lets flowmesh status in that directory find the mesh, unless NATS_URL says otherwise', async () => {
    const auth = await prepareLocalNatsAuth(options);
    const defaults = { natsUrl: 'nats://127.0.0.1:4222', natsUrlGiven: false };
    expect(await cliNatsUrl(defaults, workDir)).toBe(auth.urlOf(MESH_OPERATOR_USER));
    expect(await cliNatsUrl({ ...defaults, natsUrlGiven: true }, workDir)).toBe('nats://127.0.0.1:4222');
    expect(await cliNatsUrl(defaults, tmpdir())).toBe('nats://127.0.0.1:4222');
  });

  it.skipIf(!natsServerInstalled())('writes a configuration nats-server accepts', async () => {
    const { configFile } = await prepareLocalNatsAuth(options);
    expect(readFileSync(configFile, 'utf8')).toMatch(/^authorization: /);
    // `-t` tests the configuration and exits: 0 when valid, with the reason on stderr when not.
    const test = spawnSync(NATS_SERVER_BINARY, ['-t', '-c', configFile], { encoding: 'utf8' });
    expect(test.stderr).toMatch(/is valid/);
    expect(test.status).toBe(0);
  });
});
