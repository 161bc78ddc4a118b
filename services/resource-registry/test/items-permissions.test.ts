import { MeshError, type RegistryItemsClient } from '@flowmesh/contracts';
import { afterAll, beforeAll } from 'vitest';
import { as, itemsClient } from './support/items-support.js';
import { describePermissionMatrix, outcomes, row, type MatrixRow } from './support/permission-matrix.js';
import { startRegistryCast, type Actor, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;
let items: RegistryItemsClient;

/** Items every row reads, created once by the admin: in folder `team` and under `u/owner/`. */
beforeAll(async () => {
  cast = await startRegistryCast();
  items = itemsClient(cast);
  const admin = as(cast, cast.actors.admin);
  await items.createVariable({ ...admin, path: 'f/team/key', value: 'team-secret', is_secret: true });
  await items.createResource({
    ...admin,
    path: 'f/team/creds',
    resource_type: 'openai',
    value: { api_key: '$var:f/team/key' },
  });
  await items.createResource({ ...admin, path: 'u/owner/own', resource_type: 'state', value: { n: 1 } });
  await items.createScript({
    ...admin,
    path: 'f/team/script',
    language: 'bun',
    content: 'export const main = () => 1;',
    summary: '',
  });
  await items.createFlow({ ...admin, path: 'f/team/flow', summary: 'f', value: { modules: [] } });
});

afterAll(async () => {
  await cast?.stop();
});

const req = (actor: Actor) => as(cast, actor);
const admin = () => as(cast, cast.actors.admin);

/** Reading an item in `team`: everyone with a role (and the job, scoped to f/team/*); the stranger sees nothing. */
const readTeam = outcomes('ok', { stranger: 'NOT_FOUND' });
/** Writing in `team`: owner, writer, the devs group and the admin; the reader and the read-only job may not. */
const writeTeam = outcomes('ok', {
  reader: 'PERMISSION_DENIED',
  job: 'PERMISSION_DENIED',
  stranger: 'NOT_FOUND',
});

const listed = (paths: string[], path: string) => {
  if (!paths.includes(path)) throw new MeshError('NOT_FOUND', `${path} is not listed`);
};

const resources: MatrixRow[] = [
  {
    operation: 'resource.get f/team/creds',
    run: (_, a) => items.getResource({ ...req(a), path: 'f/team/creds' }),
    expect: readTeam,
  },
  {
    operation: 'resource.get u/owner/own',
    run: (_, a) => items.getResource({ ...req(a), path: 'u/owner/own' }),
    // The job acts as owner, but its scopes stop at f/team/*.
    expect: outcomes('NOT_FOUND', { admin: 'ok', owner: 'ok' }),
  },
  {
    operation: 'resource.get_value_interpolated f/team/creds (a team secret inside)',
    run: (_, a) => items.getResourceValueInterpolated({ ...req(a), path: 'f/team/creds' }),
    expect: readTeam,
  },
  {
    operation: 'resource.exists f/team/creds',
    run: async (_, a) => (await items.resourceExists({ ...req(a), path: 'f/team/creds' })).exists,
    expect: outcomes('ok', { stranger: 'denied' }),
  },
  {
    operation: 'resource.list shows f/team/creds',
    run: async (_, a) =>
      listed(
        (await items.listResources(req(a))).resources.map((r) => r.path),
        'f/team/creds',
      ),
    expect: readTeam,
  },
  {
    operation: 'resource.create in f/team',
    run: (c, a) =>
      items.createResource({ ...req(a), path: `f/team/${c.unique('r')}`, resource_type: 'state', value: 1 }),
    expect: writeTeam,
  },
  {
    operation: 'resource.create under u/owner',
    run: (c, a) =>
      items.createResource({ ...req(a), path: `u/owner/${c.unique('r')}`, resource_type: 'state', value: 1 }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok', owner: 'ok' }),
  },
  row<string>({
    operation: 'resource.update_value in f/team',
    prepare: async (c) =>
      (
        await items.createResource({
          ...admin(),
          path: `f/team/${c.unique('r')}`,
          resource_type: 'state',
          value: 0,
        })
      ).path,
    run: (_, a, path) => items.updateResourceValue({ ...req(a), path, value: 1 }),
    expect: writeTeam,
  }),
  row<string>({
    operation: 'resource.delete in f/team',
    prepare: async (c) =>
      (
        await items.createResource({
          ...admin(),
          path: `f/team/${c.unique('r')}`,
          resource_type: 'state',
          value: 0,
        })
      ).path,
    run: (_, a, path) => items.deleteResource({ ...req(a), path }),
    expect: writeTeam,
  }),
];

const resourceTypes: MatrixRow[] = [
  {
    operation: 'resource_type.list',
    run: (_, a) => items.listResourceTypes(req(a)),
    expect: outcomes('ok', { job: 'PERMISSION_DENIED' }),
  },
  {
    operation: 'resource_type.create',
    run: (c, a) =>
      items.createResourceType({
        ...req(a),
        name: `c_${c.unique('t').toLowerCase()}`,
        schema: { type: 'object' },
      }),
    expect: outcomes('ok', { job: 'PERMISSION_DENIED' }),
  },
];

const variables: MatrixRow[] = [
  {
    operation: 'variable.get_value f/team/key (secret)',
    run: (_, a) => items.getVariableValue({ ...req(a), path: 'f/team/key' }),
    expect: readTeam,
  },
  {
    operation: 'variable.list shows f/team/key',
    run: async (_, a) =>
      listed(
        (await items.listVariables(req(a))).variables.map((v) => v.path),
        'f/team/key',
      ),
    expect: readTeam,
  },
  {
    operation: 'variable.create secret in f/team',
    run: (c, a) =>
      items.createVariable({ ...req(a), path: `f/team/${c.unique('v')}`, value: 's', is_secret: true }),
    expect: writeTeam,
  },
  row<string>({
    operation: 'variable.update secret in f/team',
    prepare: async (c) =>
      (
        await items.createVariable({
          ...admin(),
          path: `f/team/${c.unique('v')}`,
          value: 'a',
          is_secret: true,
        })
      ).path,
    run: (_, a, path) => items.updateVariable({ ...req(a), path, value: 'b' }),
    expect: writeTeam,
  }),
  row<string>({
    operation: 'variable.delete in f/team',
    prepare: async (c) =>
      (await items.createVariable({ ...admin(), path: `f/team/${c.unique('v')}`, value: 'a' })).path,
    run: (_, a, path) => items.deleteVariable({ ...req(a), path }),
    expect: writeTeam,
  }),
  {
    operation: 'interpolate $var:f/team/key',
    run: (_, a) => items.interpolate({ ...req(a), value: { key: '$var:f/team/key' } }),
    expect: readTeam,
  },
];

const scripts: MatrixRow[] = [
  {
    operation: 'script.get f/team/script',
    run: (_, a) => items.getScript({ ...req(a), path: 'f/team/script' }),
    expect: readTeam,
  },
  {
    operation: 'script.update f/team/script (a new version)',
    run: (c, a) =>
      items.updateScript({
        ...req(a),
        path: 'f/team/script',
        language: 'bun',
        content: `export const main = () => '${c.unique('v')}';`,
        summary: '',
      }),
    expect: writeTeam,
  },
  row<string>({
    operation: 'script.delete in f/team',
    prepare: async (c) =>
      (
        await items.createScript({
          ...admin(),
          path: `f/team/${c.unique('s')}`,
          language: 'bash',
          content: 'echo',
          summary: '',
        })
      ).path,
    run: (_, a, path) => items.deleteScript({ ...req(a), path }),
    expect: writeTeam,
  }),
];

const flows: MatrixRow[] = [
  {
    operation: 'flow.get f/team/flow',
    run: (_, a) => items.getFlow({ ...req(a), path: 'f/team/flow' }),
    expect: readTeam,
  },
  {
    operation: 'flow.update f/team/flow',
    run: (c, a) =>
      items.updateFlow({ ...req(a), path: 'f/team/flow', summary: c.unique('s'), value: { modules: [] } }),
    expect: writeTeam,
  },
  row<string>({
    operation: 'flow.delete in f/team',
    prepare: async (c) =>
      (
        await items.createFlow({
          ...admin(),
          path: `f/team/${c.unique('f')}`,
          summary: '',
          value: { modules: [] },
        })
      ).path,
    run: (_, a, path) => items.deleteFlow({ ...req(a), path }),
    expect: writeTeam,
  }),
];

describePermissionMatrix('items: resources', () => cast, resources);
describePermissionMatrix('items: resource types', () => cast, resourceTypes);
describePermissionMatrix('items: variables', () => cast, variables);
describePermissionMatrix('items: scripts', () => cast, scripts);
describePermissionMatrix('items: flows', () => cast, flows);
