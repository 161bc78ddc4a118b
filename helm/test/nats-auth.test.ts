import { readFileSync } from 'node:fs';
import { MESH_OPERATOR_USER, MESH_PROCESSES, STREAMS } from '@flowmesh/contracts';
import { connectMesh, ensureStreams, natsUrlWithCredentials } from '@flowmesh/messaging';
import { natsServerInstalled, startOwnNatsServer, TEST_STREAMS, type OwnNatsServer } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATS_PERMISSIONS_FILE, renderNatsPermissionsFile } from '../scripts/sync-nats-permissions.js';
import { renderChart } from './render-chart.js';

interface K8sObject {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    template: {
      spec: {
        containers: Array<{
          env: Array<{
            name: string;
            value?: string;
            valueFrom?: { secretKeyRef?: { name: string; key: string } };
          }>;
        }>;
      };
    };
  };
}

const template = (...args: string[]) => renderChart<K8sObject>(...args);

const secret = (objects: K8sObject[], name: string) =>
  objects.find((o) => o.kind === 'Secret' && o.metadata.name === name);

describe('helm/flowmesh/files/nats-permissions.json', () => {
  it('is what the contracts produce today', () => {
    expect(
      readFileSync(NATS_PERMISSIONS_FILE, 'utf8') === renderNatsPermissionsFile(),
      'helm/flowmesh/files/nats-permissions.json is stale: run `npm run nats:sync` and commit it',
    ).toBe(true);
  });
});

describe('the chart’s NATS users', () => {
  it('gives each process its own user and password, from the users Secret', () => {
    const objects = template();
    const users = secret(objects, 'rel-flowmesh-nats-users')!;
    expect(Object.keys(users.data ?? {}).sort()).toEqual(
      [...MESH_PROCESSES.map((p) => p.name), MESH_OPERATOR_USER].sort(),
    );
    const deployments = objects.filter((o) => o.kind === 'Deployment');
    expect(deployments).toHaveLength(MESH_PROCESSES.length);
    for (const deployment of deployments) {
      const process = deployment.metadata.name.replace(/^rel-flowmesh-/, '');
      const env = deployment.spec!.template.spec.containers[0].env;
      const names = env.map((e) => e.name);
      // $(NATS_PASSWORD) expands only when NATS_PASSWORD is defined before NATS_URL.
      expect(names.indexOf('NATS_PASSWORD')).toBeLessThan(names.indexOf('NATS_URL'));
      expect(env.find((e) => e.name === 'NATS_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({
        name: 'rel-flowmesh-nats-users',
        key: process,
      });
      expect(env.find((e) => e.name === 'NATS_URL')?.value).toBe(
        `nats://${process}:$(NATS_PASSWORD)@nats:4222`,
      );
    }
  });

  it('uses a users Secret you manage, and renders no authorization for it', () => {
    const objects = template('--set', 'nats.auth.existingSecret=my-nats-users');
    expect(secret(objects, 'rel-flowmesh-nats-users')).toBeUndefined();
    expect(secret(objects, 'rel-flowmesh-nats-authorization')).toBeUndefined();
    for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
      const env = deployment.spec!.template.spec.containers[0].env;
      expect(env.find((e) => e.name === 'NATS_PASSWORD')?.valueFrom?.secretKeyRef?.name).toBe(
        'my-nats-users',
      );
    }
  });

  it.each([
    ['auth is off', 'nats.auth.enabled=false'],
    // An upgrade with --reuse-values from a release older than nats.auth: off, as it was.
    ['the values predate nats.auth', 'nats.auth=null'],
  ])('leaves NATS_URL to the ConfigMap when %s', (_, setting) => {
    const objects = template('--set', setting);
    const secrets = objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name);
    expect(secrets.filter((name) => name.includes('nats'))).toEqual([]);
    for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
      const names = deployment.spec!.template.spec.containers[0].env.map((e) => e.name);
      expect(names).not.toContain('NATS_URL');
      expect(names).not.toContain('NATS_PASSWORD');
    }
  });
});

// The rendered authorization block in a real nats-server: the chart's passwords log in, with the
// permissions of the release's prefix; anyone else is refused.
describe.skipIf(!natsServerInstalled())('the chart’s authorization.conf in a nats-server', () => {
  const prefix = `helmauth${process.pid}`;
  let server: OwnNatsServer;
  let serverUrl: string;
  let passwords: Record<string, string>;

  beforeAll(async () => {
    const objects = template('--set', `subjectPrefix=${prefix}`);
    const users = secret(objects, 'rel-flowmesh-nats-users')!;
    passwords = Object.fromEntries(
      Object.entries(users.data ?? {}).map(([user, value]) => [
        user,
        Buffer.from(value, 'base64').toString(),
      ]),
    );
    const authorization = secret(objects, 'rel-flowmesh-nats-authorization')!.stringData![
      'authorization.conf'
    ];
    // As an operator would: the chart's block in a file the server's configuration includes.
    server = await startOwnNatsServer({
      files: { 'flowmesh-authorization.conf': authorization },
      config: 'include ./flowmesh-authorization.conf',
    });
    serverUrl = server.url;
  }, 120_000);

  afterAll(() => server?.stop());

  it('admits the registry with its password, which may create the release’s streams', async () => {
    const url = natsUrlWithCredentials(serverUrl, 'resource-registry', passwords['resource-registry']);
    const conn = await connectMesh({ url, name: 'resource-registry', prefix });
    try {
      const results = await ensureStreams(conn, TEST_STREAMS);
      expect(results.map((r) => r.name)).toEqual(
        Object.values(STREAMS).map((s) => conn.space.streamName(s.name)),
      );
    } finally {
      await conn.drain();
    }
  });

  it('refuses anyone else, and a gateway hearing the registry’s requests', async () => {
    await expect(connectMesh({ url: serverUrl, name: 'anonymous', prefix })).rejects.toThrow(
      /Authorization Violation/i,
    );
    const url = natsUrlWithCredentials(serverUrl, 'llm-gateway', passwords['llm-gateway']);
    const gateway = await connectMesh({ url, name: 'llm-gateway', prefix });
    try {
      const refusal = await new Promise<string>((resolve) =>
        gateway.nc.subscribe(`${prefix}.registry.>`, {
          callback: (error) => error && resolve(error.message),
        }),
      );
      expect(refusal).toMatch(/permissions violation/i);
    } finally {
      await gateway.drain();
    }
  });
});
