import { MESH_PROCESSES, SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { serviceRoleName, workerRoleName } from '@flowmesh/persistence';
import { runFlowmesh, withTestDatabase } from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmBinary } from './helm-binary.js';
import { renderChart } from './render-chart.js';

const prefix = 'rel-flowmesh';
const rolesSecret = `${prefix}-database-roles`;
const adminSecret = `${prefix}-database-admin`;

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface K8sObject {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: { template: { spec: { containers: Array<{ env: EnvVar[]; args?: string[] }> } } };
}

const template = (...args: string[]) => renderChart<K8sObject>(...args);

const find = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);
const envOf = (object: K8sObject) => object.spec!.template.spec.containers[0].env;
const deployments = (objects: K8sObject[]) => objects.filter((o) => o.kind === 'Deployment');
const processOf = (deployment: K8sObject) =>
  MESH_PROCESSES.find((p) => deployment.metadata.name === `${prefix}-${p.name}`)!;
const decode = (value: string | undefined) => Buffer.from(value ?? '', 'base64').toString();

/** A container's environment as Kubernetes gives it: `$(NAME)` of a variable defined before, expanded. */
function expandEnv(env: EnvVar[], objects: K8sObject[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const { name, value, valueFrom } of env) {
    const ref = valueFrom?.secretKeyRef;
    values[name] = ref
      ? decode(find(objects, 'Secret', ref.name)?.data?.[ref.key])
      : (value ?? '').replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, v: string) => values[v] ?? whole);
  }
  return values;
}

beforeAll(() => {
  helmBinary();
}, 120_000);

describe('the chart’s PostgreSQL role per service', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = template();
  });

  it('gives each pod its own role and password only, composed into its DATABASE_URL', () => {
    expect(deployments(objects)).toHaveLength(MESH_PROCESSES.length);
    for (const deployment of deployments(objects)) {
      const { service, role, name } = processOf(deployment);
      const env = envOf(deployment);
      const names = env.map((e) => e.name);
      // $(VAR) expands only from variables defined before it.
      expect(names.indexOf('DATABASE_USER')).toBeLessThan(names.indexOf('DATABASE_URL'));
      expect(names.indexOf('DATABASE_PASSWORD')).toBeLessThan(names.indexOf('DATABASE_URL'));
      const byName = new Map(env.map((e) => [e.name, e]));
      // The role names match serviceRoleName/workerRoleName and SERVICE_SCHEMAS.
      const schema = SERVICE_SCHEMAS[service];
      expect(byName.get('DATABASE_USER')?.value).toBe(
        role === 'worker' ? workerRoleName('flowmesh', schema) : serviceRoleName('flowmesh', schema),
      );
      expect(byName.get('DATABASE_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({
        name: rolesSecret,
        key: name,
      });
      expect(byName.get('DATABASE_URL')?.value).toBe(
        'postgres://$(DATABASE_USER):$(DATABASE_PASSWORD)@postgres:5432/flowmesh',
      );
      const refs = env.flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : []));
      expect(refs.filter((r) => r.name === rolesSecret)).toEqual([{ name: rolesSecret, key: name }]);
      expect(refs.filter((r) => r.name === adminSecret || r.key === 'DATABASE_URL')).toEqual([]);
    }
  });

  it('keeps a URL-safe password per service and worker in a hook Secret made before the Job', () => {
    const secret = find(objects, 'Secret', rolesSecret)!;
    expect(Object.keys(secret.data!).sort()).toEqual(MESH_PROCESSES.map((p) => p.name).sort());
    for (const value of Object.values(secret.data!)) expect(decode(value)).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(secret.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-weight': '-10',
    });
  });

  it('runs flowmesh db provision-roles in a hook Job, the only object given the admin URL', () => {
    const job = find(objects, 'Job', `${prefix}-database-roles`)!;
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-weight': '0',
    });
    expect(job.spec!.template.spec.containers[0].args).toEqual([
      'db',
      'provision-roles',
      '--expect-endpoint',
      'postgres://postgres:5432/flowmesh',
    ]);
    const env = expandEnv(envOf(job), objects);
    expect(env.DATABASE_URL).toBe('postgres://flowmesh@postgres:5432/flowmesh');
    expect(Object.keys(env).filter((name) => name.startsWith('FLOWMESH_DB_PASSWORD_'))).toHaveLength(
      MESH_PROCESSES.length,
    );
    const admin = find(objects, 'Secret', adminSecret)!;
    expect(admin.metadata.annotations?.['helm.sh/hook-delete-policy']).toContain('hook-succeeded');
  });

  it('takes the server from postgres.url, without its credentials', () => {
    const rendered = template(
      '--set',
      'postgres.url=postgres://admin:pw@db.infra:6432/fm_prod?sslmode=require',
    );
    const env = new Map(
      envOf(find(rendered, 'Deployment', `${prefix}-resource-registry`)!).map((e) => [e.name, e]),
    );
    expect(env.get('DATABASE_USER')?.value).toBe('fm_prod_registry');
    expect(env.get('DATABASE_URL')?.value).toBe(
      'postgres://$(DATABASE_USER):$(DATABASE_PASSWORD)@db.infra:6432/fm_prod?sslmode=require',
    );
    expect(
      find(rendered, 'Job', `${prefix}-database-roles`)!.spec!.template.spec.containers[0].args,
    ).toContain('postgres://db.infra:6432/fm_prod?sslmode=require');
  });

  it('reads the admin URL from secret.existingSecret, and the passwords from serviceRoles.existingSecret', () => {
    const rendered = template(
      '--set',
      'secret.existingSecret=managed',
      '--set',
      'postgres.serviceRoles.existingSecret=managed-roles',
    );
    const secrets = rendered.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name);
    expect(secrets).not.toContain(adminSecret);
    expect(secrets).not.toContain(rolesSecret);
    const jobEnv = envOf(find(rendered, 'Job', `${prefix}-database-roles`)!);
    expect(jobEnv.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'managed',
      key: 'DATABASE_URL',
    });
    for (const deployment of deployments(rendered)) {
      const refs = envOf(deployment).flatMap((e) =>
        e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : [],
      );
      expect(refs.find((r) => r.key === 'DATABASE_URL')).toBeUndefined();
      expect(refs).toContainEqual({ name: 'managed-roles', key: processOf(deployment).name });
    }
  });

  it('renders the chart without roles when off (and migrations off): no Job, no role Secrets, DATABASE_URL from the Secret', () => {
    // The migrations Job without roles: helm/test/production-values.test.ts.
    const rendered = template(
      '--set',
      'postgres.serviceRoles.enabled=false',
      '--set',
      'migrations.enabled=false',
    );
    expect(rendered.filter((o) => o.kind === 'Job')).toEqual([]);
    const secrets = rendered.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name);
    expect(secrets).not.toContain(adminSecret);
    expect(secrets).not.toContain(rolesSecret);
    for (const deployment of deployments(rendered)) {
      const env = envOf(deployment);
      expect(env.map((e) => e.name)).not.toContain('DATABASE_USER');
      expect(env.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
        name: `${prefix}-secrets`,
        key: 'DATABASE_URL',
      });
    }
  });
});

// The rendered Job's command and environment against the real PostgreSQL, then a service's
// rendered URL, expanded as Kubernetes would, logging in as its role.
describe('the chart’s provisioning Job on a real PostgreSQL', () => {
  const database = withTestDatabase('helmroles');
  let objects: K8sObject[];

  beforeAll(() => {
    objects = template('--set', `postgres.url=${database.url}`);
  });
  afterAll(() => database.drop());

  it('creates the roles the pods then log in as, each confined to its schema', async () => {
    const job = find(objects, 'Job', `${prefix}-database-roles`)!;
    const result = await runFlowmesh(job.spec!.template.spec.containers[0].args!, {
      env: expandEnv(envOf(job), objects),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(MESH_PROCESSES.length);

    const gateway = expandEnv(envOf(find(objects, 'Deployment', `${prefix}-llm-gateway`)!), objects);
    const client = new pg.Client({ connectionString: gateway.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ user: string }>('SELECT current_user AS user');
      expect(rows[0].user).toBe(serviceRoleName(database.name, 'llm_gateway'));
      await client.query('CREATE TABLE llm_gateway.probe (id int)');
      await expect(client.query('CREATE TABLE registry.probe (id int)')).rejects.toMatchObject({
        code: '42501',
      });
    } finally {
      await client.end();
    }

    // The worker's pod logs in as the rows-only role of the orchestrator's schema.
    const worker = expandEnv(
      envOf(find(objects, 'Deployment', `${prefix}-flow-orchestrator-worker`)!),
      objects,
    );
    const workerClient = new pg.Client({ connectionString: worker.DATABASE_URL });
    await workerClient.connect();
    try {
      const { rows } = await workerClient.query<{ user: string }>('SELECT current_user AS user');
      expect(rows[0].user).toBe(workerRoleName(database.name, 'orchestrator'));
      await expect(workerClient.query('CREATE TABLE orchestrator.probe (id int)')).rejects.toMatchObject({
        code: '42501',
      });
    } finally {
      await workerClient.end();
    }
  });
});
