import {
  createRegistryDeployClient,
  createRegistryDraftsClient,
  createRegistryHistoryClient,
  type RegistryDeployClient,
  type RegistryDraftsClient,
  type RegistryHistoryClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { afterAll, beforeAll } from 'vitest';
import { as, itemsClient } from './support/items-support.js';
import { describePermissionMatrix, outcomes, row, type MatrixRow } from './support/permission-matrix.js';
import { startRegistryCast, type Actor, type ActorName, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;
let items: RegistryItemsClient;
let history: RegistryHistoryClient;
let drafts: RegistryDraftsClient;
let deploy: RegistryDeployClient;
let ownersDraft: string;

const TARGET = 'stage';
const req = (actor: Actor) => as(cast, actor);
const admin = () => as(cast, cast.actors.admin);
const mcp = (n: number) => ({ url: `https://mcp.example.test/${n}` });

beforeAll(async () => {
  cast = await startRegistryCast();
  items = itemsClient(cast);
  history = createRegistryHistoryClient(cast.service.client);
  drafts = createRegistryDraftsClient(cast.service.client);
  deploy = createRegistryDeployClient(cast.service.client);
  await items.createResource({ ...admin(), path: 'f/team/tool', resource_type: 'mcp', value: mcp(1) });
  await items.updateResourceValue({ ...admin(), path: 'f/team/tool', value: mcp(2) });
  await items.createFlow({
    ...admin(),
    path: 'f/team/flow',
    summary: 'uses the tool',
    value: {
      modules: [
        {
          id: 'a',
          value: {
            type: 'rawscript',
            language: 'bun',
            content: 'export const main = (t) => t',
            input_transforms: { t: { type: 'static', value: '$res:f/team/tool' } },
          },
        },
      ],
    },
  });
  ownersDraft = (
    await drafts.save({
      ...req(cast.actors.owner),
      item_kind: 'resource',
      path: 'f/team/tool',
      value: { resource_type: 'mcp', value: mcp(9) },
    })
  ).id;
  // The target workspace, written with the first admin's token (valid in every workspace).
  await cast.registry.createWorkspace({ actor: admin().actor, id: TARGET, name: 'Stage' });
  await cast.registry.createFolder({ ...admin(), workspace: TARGET, name: 'team' });
});

afterAll(async () => {
  await cast?.stop();
});

/** Reading in `team`: every role and the job (scoped to f/team/*); the stranger sees nothing. */
const readTeam = outcomes('ok', { stranger: 'NOT_FOUND' });
/** Writing in `team`: owner, writer, the devs group and the admin; the reader and the read-only job may not. */
const writeTeam = outcomes('ok', {
  reader: 'PERMISSION_DENIED',
  job: 'PERMISSION_DENIED',
  stranger: 'NOT_FOUND',
});

/** A resource in `team` with two versions, fresh for each cell. */
async function teamResourceWithHistory(c: RegistryCast): Promise<string> {
  const path = `f/team/${c.unique('h')}`;
  await items.createResource({ ...admin(), path, resource_type: 'mcp', value: mcp(1) });
  await items.updateResourceValue({ ...admin(), path, value: mcp(2) });
  return path;
}

/** A draft of a new resource in `team` belonging to the cell's actor (the job's user is owner), written straight to the table. */
async function draftOf(c: RegistryCast, name: ActorName): Promise<string> {
  const path = `f/team/${c.unique('d')}`;
  await c.dataSource.query(
    `INSERT INTO draft (workspace_id, item_kind, path, username, value) VALUES ($1, 'resource', $2, $3, $4::jsonb)`,
    [c.workspace, path, c.actors[name].username, JSON.stringify({ resource_type: 'mcp', value: mcp(3) })],
  );
  return path;
}

const historyRows: MatrixRow[] = [
  {
    operation: 'history.list f/team/tool',
    run: (_, a) => history.list({ ...req(a), path: 'f/team/tool' }),
    expect: readTeam,
  },
  {
    operation: 'history.get f/team/tool v1',
    run: (_, a) => history.get({ ...req(a), path: 'f/team/tool', version: 1 }),
    expect: readTeam,
  },
  {
    operation: 'history.diff f/team/tool 1..2',
    run: (_, a) => history.diff({ ...req(a), path: 'f/team/tool', from: 1, to: 2 }),
    expect: readTeam,
  },
  row<string>({
    operation: 'history.restore in f/team',
    prepare: teamResourceWithHistory,
    run: (_, a, path) => history.restore({ ...req(a), path, version: 1 }),
    expect: writeTeam,
  }),
  row<string>({
    operation: 'history.clear in f/team',
    prepare: teamResourceWithHistory,
    run: (_, a, path) => history.clear({ ...req(a), path }),
    expect: writeTeam,
  }),
];

/** The job's scopes name no `drafts:` domain, so every draft operation is refused to it. */
const draftRows: MatrixRow[] = [
  {
    operation: 'draft.save in f/team',
    run: (c, a) =>
      drafts.save({
        ...req(a),
        item_kind: 'resource',
        path: `f/team/${c.unique('s')}`,
        value: { resource_type: 'mcp' },
      }),
    expect: outcomes('ok', { reader: 'PERMISSION_DENIED', job: 'PERMISSION_DENIED', stranger: 'NOT_FOUND' }),
  },
  {
    operation: "draft.list (one's own)",
    run: (_, a) => drafts.list(req(a)),
    expect: outcomes('ok', { job: 'PERMISSION_DENIED' }),
  },
  {
    operation: "draft.get of owner's draft by id",
    run: (_, a) => drafts.get({ ...req(a), draft: { id: ownersDraft } }),
    // Only its user; a reader of the item, an admin and a job without drafts:read get nothing.
    expect: outcomes('NOT_FOUND', { owner: 'ok' }),
  },
  row<string>({
    operation: "draft.deploy of one's own draft in f/team",
    prepare: draftOf,
    run: (_, a, path) => drafts.deploy({ ...req(a), item_kind: 'resource', path }),
    expect: writeTeam,
  }),
  row<string>({
    operation: "draft.discard of one's own draft",
    prepare: draftOf,
    run: (_, a, path) => drafts.discard({ ...req(a), item_kind: 'resource', path }),
    expect: outcomes('ok', { job: 'PERMISSION_DENIED' }),
  }),
];

/** Deploying f/team/flow (and the resource it uses) to `stage`, written there as the first admin. */
const order = () => ({
  target_workspace: TARGET,
  target_actor: { token: cast.actors.admin.token },
  items: [{ kind: 'flow' as const, path: 'f/team/flow' }],
});
const deployRows: MatrixRow[] = [
  {
    operation: 'deploy.plan f/team/flow',
    run: (_, a) => deploy.plan({ ...req(a), ...order() }),
    // The source must be readable; the job's scopes hold no deploy:read.
    expect: outcomes('ok', { stranger: 'NOT_FOUND', job: 'PERMISSION_DENIED' }),
  },
  {
    operation: 'deploy.apply f/team/flow',
    run: (_, a) => deploy.apply({ ...req(a), ...order(), overwrite: true }),
    expect: outcomes('ok', { stranger: 'NOT_FOUND', job: 'PERMISSION_DENIED' }),
  },
];

describePermissionMatrix('history', () => cast, historyRows);
describePermissionMatrix('drafts', () => cast, draftRows);
describePermissionMatrix('deploy', () => cast, deployRows);
