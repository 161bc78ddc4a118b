import { randomBytes } from 'node:crypto';
import {
  createRegistryIdentityClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  lockedScriptsOf,
  npmLockText,
  pythonLockText,
  type Job,
  type RegistryIdentityClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPackagesMesh, type PackagesMesh } from './support/packages-mesh.js';

/** A lock naming these workspace scripts at these versions, and no package. */
const lockNaming = (scripts: Record<string, string>) =>
  npmLockText(
    {
      hash: '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
      requirements: {},
      lockfile: { lockfileVersion: 3, requires: true, packages: { '': {} } },
    },
    scripts,
  );

// A script imports another deployed script by path (`/f/...`, `./x`): the worker reads it through
// the registry with the job's token, at the version the job's lock names (dependency-locker writes
// it on deploy), and runs it in the job's realm. Every process is real.
describe('flow-orchestrator: scripts import workspace scripts', () => {
  let mesh: PackagesMesh;
  let items: RegistryItemsClient;
  let identity: RegistryIdentityClient;
  let inMain: PackagesMesh['inMain'];

  beforeAll(async () => {
    mesh = await startPackagesMesh(
      ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker', 'dependency-locker'],
      'workspace-imports-test',
    );
    items = createRegistryItemsClient(mesh.client);
    identity = createRegistryIdentityClient(mesh.client);
    ({ inMain } = mesh);
  }, 180_000);

  afterAll(() => mesh?.stop(), 180_000);

  async function folder(): Promise<string> {
    const name = `t${randomBytes(4).toString('hex')}`;
    await identity.createFolder({ ...inMain, name });
    return `f/${name}`;
  }
  const deploy = async (path: string, content: string, lock?: string) => {
    const exists = (await items.scriptExists({ ...inMain, path })).exists;
    const body = { ...inMain, path, language: 'bun' as const, content, ...(lock ? { lock } : {}) };
    return exists ? items.updateScript(body) : items.createScript(body);
  };
  const ended = (id: string, actor = inMain.actor): Promise<Job> =>
    waitFor(
      async () => {
        const job = await mesh.jobs.get({ actor, workspace: 'main', id });
        return isTerminalJobStatus(job.status) ? job : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100, description: `job ${id} to end` },
    );
  const lockNames = (path: string, scripts: Record<string, string>) =>
    waitFor(
      async () => {
        const named = lockedScriptsOf((await items.getScript({ ...inMain, path })).lock);
        return Object.entries(scripts).every(([p, v]) => named[p] === v) ? named : undefined;
      },
      { timeoutMs: 90_000, description: `the lock of ${path} naming ${JSON.stringify(scripts)}` },
    );

  it('a saved script imports a sibling by a relative path and runs the version its lock names', async () => {
    const dir = await folder();
    const a1 = await deploy(`${dir}/a`, `export const scale = (x: number): number => 2 * x;`);
    await deploy(
      `${dir}/b`,
      `import { scale } from './a';\nimport * as again from '/${dir}/a.ts';\nexport function main(n: number) { return [scale(n), again.scale(1)]; }`,
    );
    await lockNames(`${dir}/b`, { [`${dir}/a`]: a1.hash });
    const first = await mesh.jobs.runScript({ ...inMain, path: `${dir}/b`, args: { n: 21 } });
    expect(await ended(first.job_id)).toMatchObject({ status: 'completed', result: [42, 2] });

    // A redeploy of the imported script: dependency-locker names the new version in B's lock
    // (nothing to resolve again), and B runs it.
    const a2 = await deploy(`${dir}/a`, `export const scale = (x: number): number => 3 * x;`);
    await lockNames(`${dir}/b`, { [`${dir}/a`]: a2.hash });
    const second = await mesh.jobs.runScript({ ...inMain, path: `${dir}/b`, args: { n: 21 } });
    expect(await ended(second.job_id)).toMatchObject({ status: 'completed', result: [63, 3] });

    // A lock naming the first version runs the first version, though another is deployed now.
    const pinned = await mesh.jobs.runScript({
      ...inMain,
      language: 'bun',
      content: `import { scale } from '/${dir}/a';\nexport function main() { return scale(5); }`,
      lock: lockNaming({ [`${dir}/a`]: a1.hash }),
    });
    expect(await ended(pinned.job_id)).toMatchObject({ status: 'completed', result: 10 });
    // Without a lock: the version deployed now.
    const current = await mesh.jobs.runScript({
      ...inMain,
      language: 'bun',
      content: `import { scale } from '/${dir}/a';\nexport function main() { return scale(5); }`,
    });
    expect(await ended(current.job_id)).toMatchObject({ status: 'completed', result: 15 });
  }, 240_000);

  it('python3: a script imports scripts by Windmill names (f.<folder>.x, .sibling) at the versions its lock names', async () => {
    const dir = await folder();
    const python = (path: string, content: string) => {
      const body = { ...inMain, path, language: 'python3' as const, content };
      return items
        .scriptExists({ ...inMain, path })
        .then(({ exists }) => (exists ? items.updateScript(body) : items.createScript(body)));
    };
    const dotted = dir.replace('/', '.');
    const h1 = await python(`${dir}/helpers`, `def scale(x):\n    return 2 * x\n`);
    await python(`${dir}/base`, `from .helpers import scale\n\nBASE = scale(50)\n`);
    await python(
      `${dir}/main`,
      `from .helpers import scale\nfrom ${dotted} import base\nimport ${dotted}.helpers as again\n\ndef main(n):\n    return [scale(n), again.scale(1), base.BASE]\n`,
    );
    await lockNames(`${dir}/main`, { [`${dir}/helpers`]: h1.hash });
    const first = await mesh.jobs.runScript({ ...inMain, path: `${dir}/main`, args: { n: 21 } });
    expect(await ended(first.job_id)).toMatchObject({ status: 'completed', result: [42, 2, 100] });

    // Redeployed: the locker names the new version in the importer's lock, and it runs that.
    const h2 = await python(`${dir}/helpers`, `def scale(x):\n    return 3 * x\n`);
    await lockNames(`${dir}/main`, { [`${dir}/helpers`]: h2.hash });
    const second = await mesh.jobs.runScript({ ...inMain, path: `${dir}/main`, args: { n: 21 } });
    expect(await ended(second.job_id)).toMatchObject({ status: 'completed', result: [63, 3, 150] });

    // A lock naming the first version runs the first version; without a lock, the current one.
    const content = `from ${dotted}.helpers import scale\n\ndef main():\n    return scale(5)\n`;
    const pinned = await mesh.jobs.runScript({
      ...inMain,
      language: 'python3',
      content,
      lock: pythonLockText({ pins: {}, scripts: { [`${dir}/helpers`]: h1.hash } }),
    });
    expect(await ended(pinned.job_id)).toMatchObject({ status: 'completed', result: 10 });
    const current = await mesh.jobs.runScript({ ...inMain, language: 'python3', content });
    expect(await ended(current.job_id)).toMatchObject({ status: 'completed', result: 15 });
  }, 240_000);

  it('imports of imports, in a flow step and a same_worker step; a circle fails naming it', async () => {
    const dir = await folder();
    await deploy(`${dir}/base`, `export const base = 100;`);
    await deploy(
      `${dir}/mid`,
      `import { base } from './base';\nexport const plus = (x: number) => base + x;`,
    );
    const steps = [
      {
        id: 'step',
        value: {
          type: 'rawscript',
          language: 'bun',
          content: `import { plus } from '/${dir}/mid';\nexport function main() { return plus(1); }`,
          input_transforms: {},
        },
      },
    ];
    expect(await mesh.runFlow(steps)).toMatchObject({ status: 'completed', result: 101 });
    const { job_id: sameWorker } = await mesh.jobs.runFlow({
      ...inMain,
      value: { same_worker: true, modules: steps },
    });
    expect(await ended(sameWorker)).toMatchObject({ status: 'completed', result: 101 });

    await deploy(`${dir}/x`, `import { y } from './y';\nexport const x = () => y;`);
    await deploy(`${dir}/y`, `import { x } from './x';\nexport const y = () => x;`);
    const circle = await mesh.runFlow([
      {
        id: 'step',
        value: {
          type: 'rawscript',
          language: 'bun',
          content: `import { x } from '/${dir}/x';\nexport function main() { return typeof x; }`,
          input_transforms: {},
        },
      },
    ]);
    expect(circle.status).toBe('failed');
    expect(JSON.stringify(circle.result)).toContain(`${dir}/x -> ${dir}/y -> ${dir}/x`);
  }, 240_000);

  it('a job that may not read the imported script fails naming its path; its own scripts import fine', async () => {
    const secret = await folder();
    await deploy(`${secret}/hidden`, `export const value = 'secret';`);
    const username = `u${randomBytes(3).toString('hex')}`;
    await identity.addUser({ ...inMain, email: `${username}@example.test`, username });
    const { token } = await identity.createApiToken({ ...inMain, username, label: 'imports' });
    const asUser = { actor: { token }, workspace: 'main' };
    await items.createScript({
      ...asUser,
      path: `u/${username}/mine`,
      language: 'bun',
      content: `export const value = 'mine';`,
    });

    const own = await mesh.jobs.runScript({
      ...asUser,
      language: 'bun',
      content: `import { value } from '/u/${username}/mine';\nexport function main() { return value; }`,
    });
    expect(await ended(own.job_id, asUser.actor)).toMatchObject({ status: 'completed', result: 'mine' });

    const refused = await mesh.jobs.runScript({
      ...asUser,
      language: 'bun',
      content: `import { value } from '/${secret}/hidden';\nexport function main() { return value; }`,
    });
    const job = await ended(refused.job_id, asUser.actor);
    expect(job.status).toBe('failed');
    expect(job.result).toMatchObject({
      error: {
        name: 'ImportError',
        message: expect.stringMatching(
          new RegExp(`^import of '/${secret}/hidden': script ${secret}/hidden: .*may not read it`),
        ) as unknown,
      },
    });
  }, 240_000);
});
