import { fileURLToPath } from 'node:url';
import {
  MESH_PROCESSES,
  ORCHESTRATOR_PRIORITY_DURABLE,
  ORCHESTRATOR_WORKER_DURABLE,
  STREAMS,
  SubjectSpace,
} from '@flowmesh/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { helmBinary, runHelm } from './helm-binary.js';
import { expectValidManifests } from './kubernetes-schemas.js';
import { CHART_DIR, renderChart } from './render-chart.js';

const PRODUCTION_VALUES = fileURLToPath(new URL('../flowmesh/values-production.yaml', import.meta.url));
// renderChart names the release `rel`.
const prefix = 'rel-flowmesh';

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}
interface Container {
  name: string;
  args?: string[];
  ports?: { containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    securityContext: { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
    containers: Container[];
  };
}

const ofKind = (objects: Manifest[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: Manifest[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toBeDefined();
  return found!;
};
const templateOf = (deployment: Manifest) => deployment.spec.template as PodTemplate;
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

beforeAll(() => {
  helmBinary();
}, 120_000);

describe('helm/flowmesh/values-production.yaml', () => {
  let objects: Manifest[];
  beforeAll(() => {
    objects = renderChart<Manifest>('-f', PRODUCTION_VALUES);
  });

  it('passes helm lint --strict', () => {
    const result = runHelm(['lint', '--strict', CHART_DIR, '-f', PRODUCTION_VALUES]);
    expect(result.stdout + result.stderr).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    expect(result.status).toBe(0);
  });

  it('renders only kinds with a model, every object valid against the Kubernetes (and KEDA) schemas', () => {
    expectValidManifests(objects);
    expect(new Set(objects.map((o) => o.kind))).toEqual(
      new Set([
        'ConfigMap',
        'Deployment',
        'HorizontalPodAutoscaler',
        'Ingress',
        'Job',
        'NetworkPolicy',
        'PodDisruptionBudget',
        'ScaledObject',
        'Secret',
        'Service',
        'ServiceAccount',
      ]),
    );
  });

  it('scales each service on CPU with an HPA that owns its replicas', () => {
    const services = MESH_PROCESSES.filter((p) => p.role === 'service');
    expect(
      ofKind(objects, 'HorizontalPodAutoscaler')
        .map((h) => h.metadata.name)
        .sort(),
    ).toEqual(services.map((p) => `${prefix}-${p.name}`).sort());
    for (const process of services) {
      const name = `${prefix}-${process.name}`;
      const hpa = named(objects, 'HorizontalPodAutoscaler', name).spec as {
        scaleTargetRef: { kind: string; name: string };
        minReplicas: number;
        maxReplicas: number;
        metrics: { resource: { name: string; target: { averageUtilization: number } } }[];
      };
      expect(hpa.scaleTargetRef).toMatchObject({ kind: 'Deployment', name });
      expect([hpa.minReplicas, hpa.maxReplicas]).toEqual([2, 8]);
      expect(hpa.metrics.map((m) => [m.resource.name, m.resource.target.averageUtilization])).toEqual([
        ['cpu', 70],
      ]);
      // An upgrade must not reset what the HPA chose.
      expect(named(objects, 'Deployment', name).spec.replicas).toBeUndefined();
    }
  });

  it('scales the workers through KEDA on the lag of the durable consumers they read, per tag and lane', () => {
    const worker = `${prefix}-flow-orchestrator-worker`;
    const scaled = named(objects, 'ScaledObject', worker).spec as {
      scaleTargetRef: { name: string };
      minReplicaCount: number;
      maxReplicaCount: number;
      triggers: { type: string; metadata: Record<string, string> }[];
    };
    expect(scaled.scaleTargetRef.name).toBe(worker);
    expect([scaled.minReplicaCount, scaled.maxReplicaCount]).toEqual([2, 20]);
    // The names the workers' consumers have on the wire (libs/messaging: `<durable>-<tag>`).
    const space = new SubjectSpace('fm');
    const expected = ['default', 'python'].flatMap((tag) =>
      [ORCHESTRATOR_WORKER_DURABLE, ORCHESTRATOR_PRIORITY_DURABLE].map((durable) => ({
        stream: space.streamName(STREAMS.work.name),
        consumer: space.durableName(`${durable}-${tag}`),
      })),
    );
    expect(scaled.triggers.map((t) => t.type)).toEqual(expected.map(() => 'nats-jetstream'));
    expect(
      scaled.triggers.map((t) => ({ stream: t.metadata.stream, consumer: t.metadata.consumer })),
    ).toEqual(expected);
    for (const trigger of scaled.triggers)
      expect(trigger.metadata).toMatchObject({
        natsServerMonitoringEndpoint: 'nats.nats.svc:8222',
        lagThreshold: '20',
      });
    expect(named(objects, 'Deployment', worker).spec.replicas).toBeUndefined();
  });

  it('keeps a disruption budget and a network policy per process, each selecting that process’s pods', () => {
    for (const process of MESH_PROCESSES) {
      const name = `${prefix}-${process.name}`;
      const pod = templateOf(named(objects, 'Deployment', name));
      const pdb = named(objects, 'PodDisruptionBudget', name).spec as {
        maxUnavailable: number;
        selector: { matchLabels: Record<string, string> };
      };
      expect(pdb.maxUnavailable).toBe(1);
      expect(selects(pdb.selector.matchLabels, pod.metadata.labels)).toBe(true);

      const policy = named(objects, 'NetworkPolicy', name).spec as {
        podSelector: { matchLabels: Record<string, string> };
        policyTypes: string[];
        ingress: { ports: { port: number }[] }[];
        egress: { ports: { port: number; protocol: string }[] }[];
      };
      expect(selects(policy.podSelector.matchLabels, pod.metadata.labels)).toBe(true);
      expect(policy.policyTypes).toEqual(['Ingress', 'Egress']);
      // In only on the ports the container listens on (HTTP; gRPC on the orchestrator); out only
      // to DNS, NATS, PostgreSQL and HTTPS.
      expect(policy.ingress.flatMap((rule) => rule.ports.map((p) => p.port))).toEqual(
        pod.spec.containers[0].ports?.map((port) => port.containerPort),
      );
      expect(policy.egress.flatMap((rule) => rule.ports.map((p) => p.port)).sort((a, b) => a - b)).toEqual([
        53, 53, 443, 4222, 5432,
      ]);
    }
  });

  it('gives every container requests and limits, and a restricted context (the worker: root with six capabilities)', () => {
    const pods = [
      ...ofKind(objects, 'Deployment').map((d) => [d.metadata.name, templateOf(d)] as const),
      ...ofKind(objects, 'Job').map((j) => [j.metadata.name, j.spec.template as PodTemplate] as const),
    ];
    for (const [name, pod] of pods) {
      expect(pod.spec.securityContext.seccompProfile?.type, name).toBe('RuntimeDefault');
      for (const container of pod.spec.containers) {
        const where = `${name}/${container.name}`;
        expect(container.resources?.requests?.cpu, where).toBeDefined();
        expect(container.resources?.requests?.memory, where).toBeDefined();
        expect(container.resources?.limits?.memory, where).toBeDefined();
        const context = container.securityContext!;
        expect(context.allowPrivilegeEscalation, where).toBe(false);
        expect(context.readOnlyRootFilesystem, where).toBe(true);
        expect(context.capabilities?.drop, where).toEqual(['ALL']);
        if (name.endsWith('-worker')) {
          expect(context.runAsUser).toBe(0);
          expect(context.capabilities?.add).toEqual([
            'SETUID',
            'SETGID',
            'CHOWN',
            'DAC_OVERRIDE',
            'FOWNER',
            'KILL',
          ]);
        } else {
          expect(context.runAsNonRoot, where).toBe(true);
          expect(context.capabilities?.add, where).toBeUndefined();
        }
      }
    }
  });

  it('migrates in a pre-install/pre-upgrade Job after the roles Job: each service as its own role', () => {
    const roles = named(objects, 'Job', `${prefix}-database-roles`);
    const job = named(objects, 'Job', `${prefix}-migrations`);
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(Number(job.metadata.annotations?.['helm.sh/hook-weight'])).toBeGreaterThan(
      Number(roles.metadata.annotations?.['helm.sh/hook-weight']),
    );
    const containers = (job.spec.template as PodTemplate).spec.containers;
    const services = MESH_PROCESSES.filter((p) => p.role === 'service').map((p) => p.name);
    expect(containers.map((c) => c.name).sort()).toEqual([...services].sort());
    for (const container of containers) {
      const env = new Map(container.env?.map((e) => [e.name, e]));
      expect(container.args).toEqual(['--migrate-only']);
      expect(env.get('FLOWMESH_SERVICE')?.value).toBe(container.name);
      expect(env.get('DATABASE_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({
        name: `${prefix}-database-roles`,
        key: container.name,
      });
      expect(env.get('DATABASE_URL')?.value).toMatch(
        /^postgres:\/\/\$\(DATABASE_USER\):\$\(DATABASE_PASSWORD\)@postgres-rw\.postgres\.svc:5432\/flowmesh\?sslmode=require$/,
      );
    }
  });

  it('lets Prometheus find each pod’s /metrics on its HTTP port', () => {
    for (const deployment of ofKind(objects, 'Deployment')) {
      const pod = templateOf(deployment);
      expect(pod.metadata.annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/path': '/metrics',
        'prometheus.io/port': String(pod.spec.containers[0].ports?.[0].containerPort),
      });
    }
  });
});

describe('the default values', () => {
  it('migrate in a hook Job and keep disruption budgets, without autoscalers or network policies', () => {
    const objects = renderChart<Manifest>();
    expect(ofKind(objects, 'Job').map((j) => j.metadata.name)).toContain(`${prefix}-migrations`);
    expect(ofKind(objects, 'PodDisruptionBudget')).toHaveLength(MESH_PROCESSES.length);
    for (const kind of ['HorizontalPodAutoscaler', 'ScaledObject', 'NetworkPolicy'])
      expect(ofKind(objects, kind), kind).toEqual([]);
    for (const deployment of ofKind(objects, 'Deployment'))
      expect(deployment.spec.replicas).toBeGreaterThan(0);
  });

  it('migrate as DATABASE_URL’s user when service roles are off', () => {
    const objects = renderChart<Manifest>('--set', 'postgres.serviceRoles.enabled=false');
    expectValidManifests(objects);
    const job = named(objects, 'Job', `${prefix}-migrations`);
    for (const container of (job.spec.template as PodTemplate).spec.containers) {
      const url = container.env?.find((e) => e.name === 'DATABASE_URL');
      expect(url?.valueFrom?.secretKeyRef).toEqual({ name: `${prefix}-database-admin`, key: 'DATABASE_URL' });
    }
    const admin = named(objects, 'Secret', `${prefix}-database-admin`);
    expect(admin.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
  });
});
