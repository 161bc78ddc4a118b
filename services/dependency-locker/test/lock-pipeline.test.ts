import { randomBytes } from 'node:crypto';
import {
  createLockerClient,
  createRegistryHistoryClient,
  createRegistryIdentityClient,
  createRegistryItemsClient,
  LOCK_EVENTS,
  lockedScriptsOf,
  parseNpmLockText,
  type Actor,
  type EventContract,
  type LockerClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { connectMesh, listenToEvent, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import {
  buildPythonIndex,
  pipAvailable,
  startMesh,
  startPackumentRegistry,
  startTestService,
  waitFor,
  type PackumentRegistry,
  type TestMesh,
  type TestService,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { dependencyLockerDefinition } from '../src/dependency-locker.definition.js';

type Payload<C> = C extends EventContract<infer P> ? z.output<P> : never;

// The whole pipeline on real processes: resource-registry (its build output) records deploys in
// its outbox, dependency-locker (in this process) locks them against a local packument registry
// and writes the locks back through the registry. Offline: no public registry is asked.
describe('dependency-locker: locks on deploy, the map, cascades', () => {
  let mesh: TestMesh;
  let locker: TestService;
  let npm: PackumentRegistry;
  let pyIndex: ReturnType<typeof buildPythonIndex> | undefined;
  let conn: MeshConnection;
  let items: RegistryItemsClient;
  let status: LockerClient;
  const admin: Actor = { token: `fm_test_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor: admin, workspace: 'main' };
  const seen = {
    completed: [] as Array<Payload<typeof LOCK_EVENTS.completed>>,
    failed: [] as Array<Payload<typeof LOCK_EVENTS.failed>>,
    skipped: [] as Array<Payload<typeof LOCK_EVENTS.skipped>>,
    superseded: [] as Array<Payload<typeof LOCK_EVENTS.superseded>>,
    revalidated: [] as Array<Payload<typeof LOCK_EVENTS.revalidated>>,
    planned: [] as Array<Payload<typeof LOCK_EVENTS.cascadePlanned>>,
    toolMismatch: [] as Array<Payload<typeof LOCK_EVENTS.toolMismatch>>,
    agentChanged: [] as Array<Payload<typeof LOCK_EVENTS.agentChanged>>,
  };
  const DEBOUNCE_MS = 3_000;

  beforeAll(async () => {
    npm = await startPackumentRegistry({
      'fm-alpha': { '1.0.0': {}, '1.1.0': { 'fm-beta': '^2.0.0' } },
      'fm-beta': { '2.0.0': {}, '2.3.0': {} },
      'fm-gamma': { '1.0.0': {}, '1.2.0': {} },
    });
    pyIndex = pipAvailable
      ? buildPythonIndex({
          'fmtest-py': { '1.0.0': [], '1.1.0': ['fmtest-dep>=2'] },
          'fmtest-dep': { '2.5.0': [] },
        })
      : undefined;
    mesh = await startMesh({
      processes: ['resource-registry'],
      env: { FLOWMESH_ADMIN_TOKEN: admin.token, FLOWMESH_ADMIN_EMAIL: 'admin@example.test' },
    });
    locker = await startTestService(dependencyLockerDefinition, {
      env: {
        FLOWMESH_SUBJECT_PREFIX: mesh.env.FLOWMESH_SUBJECT_PREFIX,
        FLOWMESH_LOCKER_NPM_REGISTRY: npm.url,
        FLOWMESH_LOCKER_DEBOUNCE_MS: String(DEBOUNCE_MS),
        FLOWMESH_LOCKER_POLL_MS: '200',
        FLOWMESH_LOCKER_PYTHON_RESOLVER: 'pip',
        ...(pyIndex ? { FLOWMESH_LOCKER_PYTHON_INDEX: pyIndex.url } : {}),
      },
    });
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'locker-pipeline-test',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    items = createRegistryItemsClient(client);
    status = createLockerClient(client);
    listenToEvent(conn, LOCK_EVENTS.completed, (e) => seen.completed.push(e));
    listenToEvent(conn, LOCK_EVENTS.failed, (e) => seen.failed.push(e));
    listenToEvent(conn, LOCK_EVENTS.skipped, (e) => seen.skipped.push(e));
    listenToEvent(conn, LOCK_EVENTS.superseded, (e) => seen.superseded.push(e));
    listenToEvent(conn, LOCK_EVENTS.revalidated, (e) => seen.revalidated.push(e));
    listenToEvent(conn, LOCK_EVENTS.cascadePlanned, (e) => seen.planned.push(e));
    listenToEvent(conn, LOCK_EVENTS.toolMismatch, (e) => seen.toolMismatch.push(e));
    listenToEvent(conn, LOCK_EVENTS.agentChanged, (e) => seen.agentChanged.push(e));
  }, 180_000);

  afterAll(async () => {
    await conn?.drain();
    await locker?.stop();
    await mesh?.stop();
    await npm?.close();
    pyIndex?.remove();
  });

  /** A folder of its own per test, so tests never see each other's items. */
  async function folder(): Promise<string> {
    const name = `t${randomBytes(4).toString('hex')}`;
    await createRegistryIdentityClient(new MeshClient(conn)).createFolder({ ...inMain, name });
    return `f/${name}`;
  }

  const completion = (
    kind: string,
    path: string,
    match: (e: Payload<typeof LOCK_EVENTS.completed>) => boolean = () => true,
  ) =>
    waitFor(() => seen.completed.find((e) => e.owner_kind === kind && e.path === path && match(e)), {
      timeoutMs: 90_000,
      description: `a lock of ${kind} ${path}`,
    });
  const count = (kind: string, path: string, root: string) =>
    seen.completed.filter((e) => e.owner_kind === kind && e.path === path && e.cascade_root === root).length;
  const versionOf = (lock: string | null | undefined, name: string) =>
    (parseNpmLockText(lock)?.lockfile.packages as Record<string, { version: string }> | undefined)?.[
      `node_modules/${name}`
    ]?.version;
  /** A flow step that links an agent. */
  const linkingStep = (agent: string) => ({
    id: 'ask',
    value: { type: 'aiagent', agent, input_transforms: { user_message: { type: 'static', value: 'hi' } } },
  });
  const scriptLock = async (path: string) => (await items.getScript({ ...inMain, path })).lock;
  const deployScript = async (path: string, content: string) => {
    const exists = (await items.scriptExists({ ...inMain, path })).exists;
    const body = { ...inMain, path, language: 'bun' as const, content };
    return exists ? items.updateScript(body) : items.createScript(body);
  };

  it('script -> importer -> agent tool -> linked flow: each locked on deploy, re-locked once when the script pins a version', async () => {
    const dir = await folder();
    const a = `${dir}/a`;
    const b = `${dir}/b`;
    const agent = `${dir}/helper`;
    const flow = `${dir}/chat`;
    const { hash: aHash } = await deployScript(
      a,
      `import alpha from 'fm-alpha';\nexport function main() { return alpha; }`,
    );
    await completion('script', a, (e) => e.version === aHash);
    expect(versionOf(await scriptLock(a), 'fm-alpha')).toBe('1.1.0');
    expect(versionOf(await scriptLock(a), 'fm-beta')).toBe('2.3.0');

    await deployScript(
      b,
      `import { main as a } from './a';\nimport g from 'fm-gamma@1.0.0';\nexport function main() { return a(); }`,
    );
    await completion('script', b);
    const bLock = await scriptLock(b);
    expect([versionOf(bLock, 'fm-alpha'), versionOf(bLock, 'fm-beta'), versionOf(bLock, 'fm-gamma')]).toEqual(
      ['1.1.0', '2.3.0', '1.0.0'],
    );

    await items.createResource({
      ...inMain,
      path: agent,
      resource_type: 'ai_agent',
      value: {
        provider: { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' },
        tools: [
          {
            id: 'shout',
            summary: 'shout',
            value: {
              tool_type: 'flowmodule',
              type: 'rawscript',
              language: 'bun',
              content: `import { main as a } from '/${a}';\nexport function main(x: string) { return x + a(); }`,
              input_transforms: {},
            },
          },
          {
            id: 'lookup',
            summary: 'lookup',
            value: { tool_type: 'flowmodule', type: 'script', path: a, input_transforms: {} },
          },
        ],
      },
    });
    await completion('agent', agent);
    const tools = (
      (await items.getResource({ ...inMain, path: agent })).value as {
        tools: Array<{ value: { lock?: string } }>;
      }
    ).tools;
    expect(versionOf(tools[0].value.lock, 'fm-alpha')).toBe('1.1.0');
    // An editor saving the agent with its tools as authored (no locks) keeps them: never blank.
    const agentValue = (await items.getResource({ ...inMain, path: agent })).value as {
      tools: Array<{ value: Record<string, unknown> }>;
    };
    await items.updateResource({
      ...inMain,
      path: agent,
      value: {
        ...agentValue,
        system_prompt: 'Be brief.',
        tools: agentValue.tools.map(({ value: { lock: _lock, ...value }, ...tool }) => ({ ...tool, value })),
      },
    });
    const kept = ((await items.getResource({ ...inMain, path: agent })).value as typeof agentValue).tools;
    expect(kept[0]?.value.lock).toBe(tools[0].value.lock);

    await items.createFlow({
      ...inMain,
      path: flow,
      value: {
        modules: [
          linkingStep(agent),
          {
            id: 'fmt',
            value: {
              type: 'rawscript',
              language: 'bun',
              content: `import g from 'fm-gamma';\nexport function main() { return 1; }`,
              input_transforms: {},
            },
          },
        ],
      },
    });
    await completion('flow', flow);
    const steps = (await items.getFlow({ ...inMain, path: flow })).value.modules as Array<{
      value: { lock?: string };
    }>;
    expect(versionOf(steps[1].value.lock, 'fm-gamma')).toBe('1.2.0');

    // The map: B imports A (with A's lock hash), the agent imports A and uses it as a tool, the flow links the agent.
    const aSha = (await status.lockStatus({ ...inMain, owner_kind: 'script', path: a })).units[0].lock_sha256;
    expect((await status.lockStatus({ ...inMain, owner_kind: 'script', path: b })).imports).toEqual([
      {
        node_id: '',
        edge_kind: 'relative_import',
        imported_kind: 'script',
        imported_path: a,
        imported_lock_sha256: aSha,
      },
    ]);
    expect(
      (await status.lockStatus({ ...inMain, owner_kind: 'agent', path: agent })).imports.map(
        (e) => `${e.node_id} ${e.edge_kind} ${e.imported_path}`,
      ),
    ).toEqual([`lookup path_tool ${a}`, `shout relative_import ${a}`]);
    expect((await status.lockStatus({ ...inMain, owner_kind: 'flow', path: flow })).imports).toMatchObject([
      { node_id: 'ask', edge_kind: 'linked_agent', imported_kind: 'agent', imported_path: agent },
    ]);

    // Redeploy A pinning fm-alpha 1.0.0: B and the agent's tool keep that pin, the flow is checked again.
    await deployScript(a, `import alpha from 'fm-alpha@1.0.0';\nexport function main() { return alpha; }`);
    const root = `script:${a}`;
    await completion('script', b, (e) => e.cascade_root === root);
    await completion('agent', agent, (e) => e.cascade_root === root);
    await waitFor(() => seen.revalidated.find((e) => e.path === flow && e.cascade_root === root), {
      timeoutMs: 90_000,
    });
    const relocked = await scriptLock(b);
    expect([
      versionOf(relocked, 'fm-alpha'),
      versionOf(relocked, 'fm-beta'),
      versionOf(relocked, 'fm-gamma'),
    ]).toEqual(['1.0.0', undefined, '1.0.0']);
    const relockedTools = (
      (await items.getResource({ ...inMain, path: agent })).value as {
        tools: Array<{ value: { lock?: string } }>;
      }
    ).tools;
    expect(versionOf(relockedTools[0].value.lock, 'fm-alpha')).toBe('1.0.0');
    // The agent imports A and runs it as a tool: re-locked and its tool checked, both; the flow
    // linking it is planned by the agent's job once its tools fit, not by A's.
    expect(
      seen.planned
        .filter((p) => p.root === root)
        .map((p) => p.targets.map((t) => `${t.owner_kind}:${t.path} ${t.action} ${t.depth}`)),
    ).toEqual([[`agent:${agent} relock 1`, `script:${b} relock 1`], [`flow:${flow} revalidate 2`]]);
    expect(seen.revalidated.filter((e) => e.path === agent && e.cascade_root === root)).toEqual([
      expect.objectContaining({ owner_kind: 'agent', outcome: 'ok', version: expect.any(String) as unknown }),
    ]);
    expect(seen.agentChanged.filter((e) => e.path === agent)).toHaveLength(1);
    expect((await status.lockStatus({ ...inMain, owner_kind: 'agent', path: agent })).revalidations).toEqual([
      expect.objectContaining({ node_id: 'lookup', because_of: root, status: 'ok' }),
    ]);
    expect(seen.revalidated.find((e) => e.path === flow && e.cascade_root === root)).toMatchObject({
      outcome: 'ok',
    });
    expect([count('script', b, root), count('agent', agent, root)]).toEqual([1, 1]);
    // Only packuments were asked for: a lock needs no tarball.
    expect(npm.requests.every((r) => !r.endsWith('.tgz'))).toBe(true);
  }, 240_000);

  it('a script an agent runs as a tool by path: a redeploy that fits bumps the agent, one that does not is recorded on it', async () => {
    const dir = await folder();
    const tool = `${dir}/search`;
    const agent = `${dir}/bot`;
    const flow = `${dir}/uses`;
    const root = `script:${tool}`;
    const pageOverride = { search: { page: { type: 'static', value: '2' } } };
    const schema = (names: string[]) => ({
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
      required: names.slice(0, 1),
    });
    const saveTool = (names: string[]) => {
      const body = {
        ...inMain,
        path: tool,
        language: 'bun' as const,
        content: `export function main(${names.map((n) => `${n}: string`).join(', ')}) { return ${names[0]}; }`,
        schema: schema(names),
      };
      return items
        .scriptExists({ ...inMain, path: tool })
        .then(({ exists }) => (exists ? items.updateScript(body) : items.createScript(body)));
    };
    await saveTool(['q', 'limit', 'page']);
    await completion('script', tool);
    await items.createResource({
      ...inMain,
      path: agent,
      resource_type: 'ai_agent',
      value: {
        provider: { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' },
        tools: [
          {
            id: 'search',
            summary: 'search',
            value: {
              tool_type: 'flowmodule',
              type: 'script',
              path: tool,
              input_transforms: { limit: { type: 'static', value: '3' } },
            },
          },
        ],
      },
    });
    // Nothing of the agent or the flow is locked (no code of their own): their edges are mapped.
    const mapped = (kind: 'agent' | 'flow', path: string, edge: string) =>
      waitFor(
        async () =>
          (await status.lockStatus({ ...inMain, owner_kind: kind, path })).imports.some(
            (e) => e.edge_kind === edge,
          ) || undefined,
        { timeoutMs: 90_000, description: `the ${edge} edge of ${path}` },
      );
    await mapped('agent', agent, 'path_tool');
    await items.createFlow({
      ...inMain,
      path: flow,
      value: {
        // The step gives the tool `page` itself: an override the agent's tool does not bind.
        modules: [
          { ...linkingStep(agent), value: { ...linkingStep(agent).value, tool_inputs: pageOverride } },
        ],
      },
    });
    await mapped('flow', flow, 'linked_agent');
    const history = createRegistryHistoryClient(new MeshClient(conn));
    const versions = async () =>
      (await history.list({ ...inMain, path: agent })).versions.map((v) => v.version);
    const before = await versions();

    // A new argument the tool leaves to the model, `page` gone: the agent's tool fits and the agent
    // gets a version; the flow follows, and its override of `page` is the misfit, recorded on it.
    await saveTool(['q', 'limit', 'lang']);
    const fits = await waitFor(
      () => seen.revalidated.find((e) => e.path === agent && e.cascade_root === root && e.outcome === 'ok'),
      { timeoutMs: 90_000, description: 'the agent revalidated' },
    );
    expect(fits).toMatchObject({ owner_kind: 'agent', edge_kind: 'path_tool', because_of: root });
    expect(seen.agentChanged.filter((e) => e.path === agent)).toEqual([
      expect.objectContaining({ version: fits.version, because_of: root }) as unknown,
    ]);
    const bumped = await versions();
    expect(bumped).toEqual([Number(fits.version), ...before]);
    const flowChecked = await waitFor(
      () => seen.revalidated.find((e) => e.path === flow && e.cascade_root === root),
      { timeoutMs: 90_000, description: 'the flow linking the agent revalidated' },
    );
    expect(flowChecked).toMatchObject({
      edge_kind: 'linked_agent',
      because_of: `agent:${agent}`,
      outcome: 'mismatch',
    });
    const override = seen.toolMismatch.find((e) => e.path === flow);
    expect(override).toMatchObject({ owner_kind: 'flow', node_id: 'ask', because_of: `agent:${agent}` });
    expect(override?.error).toBe(
      `tool_inputs override input 'page' of tool 'search' but ${tool} no longer takes it`,
    );
    expect((await status.lockStatus({ ...inMain, owner_kind: 'flow', path: flow })).revalidations).toEqual([
      expect.objectContaining({ node_id: 'ask', status: 'mismatch', error_log: override?.error }),
    ]);
    expect(seen.toolMismatch.filter((e) => e.path === agent)).toEqual([]);

    // `limit` gone, which the tool binds: recorded on the agent and announced, no new version; the
    // cascade stops at the agent, so the flow linking it is not checked again.
    const plannedBefore = seen.planned.length;
    const flowRevalidations = () => seen.revalidated.filter((e) => e.path === flow).length;
    const flowChecks = flowRevalidations();
    await saveTool(['q']);
    const mismatch = await waitFor(() => seen.toolMismatch.find((e) => e.path === agent), {
      timeoutMs: 90_000,
      description: 'the tool mismatch',
    });
    expect(mismatch).toMatchObject({ owner_kind: 'agent', node_id: 'search', because_of: root });
    expect(mismatch.error).toContain(`input 'limit' is bound by the tool but ${tool} no longer takes it`);
    await waitFor(
      () =>
        seen.revalidated.find((e) => e.path === agent && e.cascade_root === root && e.outcome === 'mismatch'),
      { timeoutMs: 90_000 },
    );
    const recorded = await status.lockStatus({ ...inMain, owner_kind: 'agent', path: agent });
    expect(recorded.revalidations).toEqual([
      expect.objectContaining({
        node_id: 'search',
        because_of: root,
        status: 'mismatch',
        error_log: mismatch.error,
      }),
    ]);
    expect(await versions()).toEqual(bumped);
    expect(seen.agentChanged.filter((e) => e.path === agent)).toHaveLength(1);
    // The agent's revalidation is announced after any cascade it plans: none was, so none follows.
    expect(
      seen.planned.slice(plannedBefore).flatMap((p) => p.targets.map((t) => `${t.owner_kind}:${t.path}`)),
    ).toEqual([`agent:${agent}`]);
    expect(flowRevalidations()).toBe(flowChecks);
  }, 240_000);

  it('a diamond re-locks its bottom once; a script and a flow at one path are two owners (kind in the debounce key)', async () => {
    const dir = await folder();
    await deployScript(`${dir}/a`, `import 'fm-gamma@1.0.0';`);
    await completion('script', `${dir}/a`);
    for (const side of ['b', 'c']) await deployScript(`${dir}/${side}`, `import '/${dir}/a';`);
    await deployScript(`${dir}/d`, `import '/${dir}/b';\nimport '/${dir}/c';`);
    await items.createFlow({
      ...inMain,
      path: `${dir}/b`,
      value: {
        modules: [
          {
            id: 's',
            value: {
              type: 'rawscript',
              language: 'bun',
              content: `import '/${dir}/a';`,
              input_transforms: {},
            },
          },
        ],
      },
    });
    for (const [kind, path] of [
      ['script', 'b'],
      ['script', 'c'],
      ['script', 'd'],
      ['flow', 'b'],
    ] as const)
      await completion(kind, `${dir}/${path}`);

    await deployScript(`${dir}/a`, `import 'fm-gamma@1.2.0';`);
    const root = `script:${dir}/a`;
    await completion('script', `${dir}/d`, (e) => e.cascade_root === root);
    await completion('flow', `${dir}/b`, (e) => e.cascade_root === root);
    expect(versionOf(await scriptLock(`${dir}/d`), 'fm-gamma')).toBe('1.2.0');
    expect(['b', 'c', 'd'].map((p) => count('script', `${dir}/${p}`, root))).toEqual([1, 1, 1]);
    expect(count('flow', `${dir}/b`, root)).toBe(1);
  }, 240_000);

  it('a redeploy that changes no lock skips the dependents; a failed lock keeps the previous one, never blank, with the error log', async () => {
    const dir = await folder();
    await deployScript(`${dir}/a`, `import 'fm-alpha@1.0.0';\nexport const x = 1;`);
    await completion('script', `${dir}/a`);
    await deployScript(`${dir}/b`, `import '/${dir}/a';`);
    await completion('script', `${dir}/b`);

    expect(lockedScriptsOf(await scriptLock(`${dir}/b`))).toEqual({
      [`${dir}/a`]: (await items.getScript({ ...inMain, path: `${dir}/a` })).hash,
    });

    // Other code, the same imports: A's lock is the same, so B is not locked again; B's lock
    // names A's new version (what a worker runs), nothing resolved for it.
    const second = await deployScript(`${dir}/a`, `import 'fm-alpha@1.0.0';\nexport const x = 2;`);
    await waitFor(() => seen.skipped.find((e) => e.path === `${dir}/b`), { timeoutMs: 90_000 });
    expect(count('script', `${dir}/b`, `script:${dir}/a`)).toBe(0);
    expect(lockedScriptsOf(await scriptLock(`${dir}/b`))).toEqual({ [`${dir}/a`]: second.hash });

    const good = await scriptLock(`${dir}/a`);
    expect(versionOf(good, 'fm-alpha')).toBe('1.0.0');
    const { hash } = await deployScript(`${dir}/a`, `import 'fm-alpha@1.0.0';\nimport 'fm-no-such-package';`);
    // The new version holds the last good lock from the moment it is saved.
    expect(await scriptLock(`${dir}/a`)).toBe(good);
    const failure = await waitFor(
      () => seen.failed.find((e) => e.path === `${dir}/a` && e.version === hash),
      {
        timeoutMs: 90_000,
      },
    );
    expect(failure.error).toContain('fm-no-such-package');
    expect(await scriptLock(`${dir}/a`)).toBe(good);
    const unit = (await status.lockStatus({ ...inMain, owner_kind: 'script', path: `${dir}/a` })).units[0];
    expect(unit).toMatchObject({ status: 'error', version: hash });
    expect(unit.error_log).toContain('fm-no-such-package');
  }, 240_000);

  it('a user deploy that lands while a cascade re-lock waits supersedes it', async () => {
    const dir = await folder();
    await deployScript(`${dir}/a`, `import 'fm-gamma@1.0.0';`);
    await completion('script', `${dir}/a`);
    await deployScript(`${dir}/b`, `import '/${dir}/a';`);
    await completion('script', `${dir}/b`);

    await deployScript(`${dir}/a`, `import 'fm-gamma@1.2.0';`);
    const root = `script:${dir}/a`;
    await waitFor(() => seen.planned.find((p) => p.root === root), { timeoutMs: 90_000 });
    // Within the debounce window, the user deploys B itself.
    const { hash } = await deployScript(`${dir}/b`, `import '/${dir}/a';\nimport 'fm-beta@2.0.0';`);
    await waitFor(() => seen.superseded.find((e) => e.path === `${dir}/b`), { timeoutMs: 90_000 });
    await completion('script', `${dir}/b`, (e) => e.cause === 'deploy' && e.version === hash);
    const lock = await scriptLock(`${dir}/b`);
    expect([versionOf(lock, 'fm-gamma'), versionOf(lock, 'fm-beta')]).toEqual(['1.2.0', '2.0.0']);
    expect(count('script', `${dir}/b`, root)).toBe(0);
  }, 240_000);

  it.skipIf(!pipAvailable)(
    'python3: a workspace import is followed and its pinned requirement kept',
    async () => {
      const dir = await folder();
      const helpers = await items.createScript({
        ...inMain,
        path: `${dir}/helpers`,
        language: 'python3',
        content: `# requirements:\n# fmtest-py==1.0.0\nimport fmtest_py\n\ndef go():\n    return 1\n`,
      });
      await completion('script', `${dir}/helpers`);
      expect((await scriptLock(`${dir}/helpers`))?.split('\n').slice(1)).toEqual(['fmtest-py==1.0.0']);
      const folderName = dir.split('/')[1];
      await items.createScript({
        ...inMain,
        path: `${dir}/main`,
        language: 'python3',
        content: `import json\nimport fmtest_py\nfrom f.${folderName}.helpers import go\n\ndef main():\n    return go()\n`,
      });
      await completion('script', `${dir}/main`);
      // Its own bare import takes the helper's pin instead of the newest (1.1.0, which needs fmtest-dep);
      // the helper's version rides along for workers, as a comment pip and Windmill skip.
      expect((await scriptLock(`${dir}/main`))?.split('\n')).toEqual([
        expect.stringMatching(/^# py: 3\.\d+$/),
        `# script: ${dir}/helpers ${helpers.hash}`,
        'fmtest-py==1.0.0',
      ]);
      expect(lockedScriptsOf(await scriptLock(`${dir}/main`))).toEqual({ [`${dir}/helpers`]: helpers.hash });
      expect(
        (await status.lockStatus({ ...inMain, owner_kind: 'script', path: `${dir}/main` })).imports,
      ).toMatchObject([{ edge_kind: 'relative_import', imported_path: `${dir}/helpers` }]);
    },
    240_000,
  );

  it('refuses the lock status to someone who may not read the item', async () => {
    await expect(
      status.lockStatus({
        actor: { token: 'fm_not_a_token' },
        workspace: 'main',
        owner_kind: 'script',
        path: 'f/x/y',
      }),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
