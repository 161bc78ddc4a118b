import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTP_ROUTES, MESH_PROCESSES, routePattern, SERVICE_NAMES } from '@flowmesh/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { helmBinary, runHelm } from './helm-binary.js';
import { expectValidManifests } from './kubernetes-schemas.js';
import { renderChart } from './render-chart.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const chart = join(repoRoot, 'helm/flowmesh');
// renderChart names the release `rel`.
const prefix = 'rel-flowmesh';

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  image: string;
  ports: { name: string; containerPort: number }[];
  env: EnvVar[];
  envFrom: { configMapRef?: { name: string } }[];
  livenessProbe: { httpGet: { path: string; port: string | number } };
  readinessProbe: { httpGet: { path: string; port: string | number } };
  startupProbe?: { httpGet: { path: string; port: string | number } };
  securityContext: {
    allowPrivilegeEscalation?: boolean;
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
  };
}
interface DeploymentObject extends K8sObject {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { securityContext: { runAsNonRoot?: boolean; runAsUser?: number }; containers: Container[] };
    };
  };
}
interface ServiceObject extends K8sObject {
  spec: {
    selector: Record<string, string>;
    ports: { name: string; port: number; targetPort: string | number }[];
  };
}
interface IngressObject extends K8sObject {
  spec: {
    ingressClassName?: string;
    rules: {
      host?: string;
      http: {
        paths: {
          path: string;
          pathType: string;
          backend: { service: { name: string; port: { name: string } } };
        }[];
      };
    }[];
  };
}

const template = (...args: string[]) => renderChart<K8sObject>(...args);

/** `--set key=value` arguments for helm. */
const set = (values: Record<string, string | number>) =>
  Object.entries(values).flatMap(([key, value]) => ['--set', `${key}=${value}`]);
const find = <T extends K8sObject>(objects: K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name) as T | undefined;
const ofKind = <T extends K8sObject>(objects: K8sObject[], kind: string) =>
  objects.filter((o) => o.kind === kind) as T[];
const envOf = (container: Container) => new Map(container.env.map((e) => [e.name, e]));
const mainContainer = (deployment: DeploymentObject) => deployment.spec.template.spec.containers[0];
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

beforeAll(() => {
  helmBinary();
}, 120_000);

describe('helm lint', () => {
  it('passes --strict with the default values and with the ingress on', () => {
    for (const args of [
      [],
      ['--set', 'ingress.enabled=true', '--set', 'ingress.host=flowmesh.example.com'],
    ]) {
      const result = runHelm(['lint', '--strict', chart, ...args]);
      expect(result.stdout + result.stderr).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
      expect(result.status).toBe(0);
    }
  });

  it.each([
    [
      ['--set-string', 'services.llm-gateway.replicas=two'],
      /services\.llm-gateway\.replicas: Invalid type\. Expected: integer, given: string/,
    ],
    [['--set', 'worker.replicas=-1'], /worker\.replicas: Must be greater than or equal to 0/],
    [['--set', 'services.billing.enabled=true'], /services must be one of the following/],
    [['--set', 'nats.url=http://nats:4222'], /nats\.url: Does not match pattern/],
    [['--set', 'image.pullPolicy=Sometimes'], /image\.pullPolicy must be one of the following/],
    [['--set', 'extraEnv.FLOWMESH_SERVICE=llm-gateway'], /extraEnv/],
    [['--set', 'services.memory-service.replica=2'], /Additional property replica is not allowed/],
  ])('values.schema.json rejects %j', (args, message) => {
    const result = runHelm(['lint', '--strict', chart, ...args]);
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(message);
  });
});

describe('helm template with the default values', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = template();
  });

  it('renders only kinds with a model, and every object validates against the Kubernetes schema', () => {
    expectValidManifests(objects);
  });

  it('renders one Deployment and one Service per service, plus the worker Deployment', () => {
    const deployments = ofKind<DeploymentObject>(objects, 'Deployment').map((d) => d.metadata.name);
    const services = ofKind<ServiceObject>(objects, 'Service').map((s) => s.metadata.name);
    const expected = SERVICE_NAMES.map((name) => `${prefix}-${name}`);
    expect(deployments.sort()).toEqual([...expected, `${prefix}-flow-orchestrator-worker`].sort());
    expect(services.sort()).toEqual([...expected].sort());
    expect(ofKind(objects, 'Ingress'), 'the ingress is off by default').toHaveLength(0);
  });

  it('starts each service from the one image with FLOWMESH_SERVICE, on its port from the contracts', () => {
    const images = new Set<string>();
    for (const process of MESH_PROCESSES) {
      const deployment = find<DeploymentObject>(objects, 'Deployment', `${prefix}-${process.name}`)!;
      const container = mainContainer(deployment);
      images.add(container.image);
      const env = envOf(container);
      expect(env.get('FLOWMESH_SERVICE')?.value).toBe(process.service);
      expect(env.get('FLOWMESH_ROLE')?.value).toBe(process.role);
      expect(env.get('OTEL_SERVICE_NAME')?.value).toBe(process.name);
      const port = container.ports.find((p) => p.name === 'http')!;
      expect(port.containerPort, `${process.name} port`).toBe(process.defaultHttpPort);
      expect(env.get('PORT')?.value).toBe(String(port.containerPort));
    }
    expect([...images]).toEqual(['ghcr.io/flowmesh/flowmesh:0.1.0']);
  });

  it('probes /healthz for liveness and /readyz for readiness on the service port', () => {
    for (const deployment of ofKind<DeploymentObject>(objects, 'Deployment')) {
      const container = mainContainer(deployment);
      const portNames = container.ports.map((p) => p.name);
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe!]) {
        expect(portNames).toContain(probe.httpGet.port);
        expect(container.ports.find((p) => p.name === probe.httpGet.port)?.containerPort).toBe(
          Number(envOf(container).get('PORT')?.value),
        );
      }
    }
  });

  it('points each Service at its own pods only, on the port the container listens on', () => {
    const deployments = ofKind<DeploymentObject>(objects, 'Deployment');
    for (const service of ofKind<ServiceObject>(objects, 'Service')) {
      const selected = deployments.filter((d) =>
        selects(service.spec.selector, d.spec.template.metadata.labels),
      );
      expect(
        selected.map((d) => d.metadata.name),
        service.metadata.name,
      ).toEqual([service.metadata.name]);
      const container = mainContainer(selected[0]);
      const [port] = service.spec.ports;
      expect(container.ports.find((p) => p.name === port.targetPort)?.containerPort).toBe(port.port);
    }
    for (const deployment of deployments) {
      expect(selects(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels)).toBe(
        true,
      );
    }
  });

  it("exposes the orchestrator's gRPC API on its container and Service (port grpc), not the worker's", () => {
    const orchestrator = find<DeploymentObject>(objects, 'Deployment', `${prefix}-flow-orchestrator`)!;
    const container = mainContainer(orchestrator);
    expect(container.ports.find((p) => p.name === 'grpc')?.containerPort).toBe(50051);
    expect(envOf(container).get('FLOWMESH_GRPC_PORT')?.value).toBe('50051');
    const service = find<ServiceObject>(objects, 'Service', `${prefix}-flow-orchestrator`)!;
    expect(service.spec.ports.find((p) => p.name === 'grpc')).toMatchObject({
      port: 50051,
      targetPort: 'grpc',
    });
    const worker = mainContainer(
      find<DeploymentObject>(objects, 'Deployment', `${prefix}-flow-orchestrator-worker`)!,
    );
    expect(worker.ports.map((p) => p.name)).toEqual(['http']);
    expect(envOf(worker).has('FLOWMESH_GRPC_PORT')).toBe(false);

    const moved = template('--set', 'services.flow-orchestrator.grpcPort=9443');
    const movedService = find<ServiceObject>(moved, 'Service', `${prefix}-flow-orchestrator`)!;
    expect(movedService.spec.ports.find((p) => p.name === 'grpc')?.port).toBe(9443);
    const off = template('--set', 'services.flow-orchestrator.grpcPort=null');
    const plain = mainContainer(find<DeploymentObject>(off, 'Deployment', `${prefix}-flow-orchestrator`)!);
    expect(plain.ports.map((p) => p.name)).toEqual(['http']);
    expect(envOf(plain).has('FLOWMESH_GRPC_PORT')).toBe(false);
  });

  it('runs the worker as the flow-orchestrator with FLOWMESH_ROLE=worker, its own replicas and tags', () => {
    const worker = find<DeploymentObject>(objects, 'Deployment', `${prefix}-flow-orchestrator-worker`)!;
    const env = envOf(mainContainer(worker));
    expect(env.get('FLOWMESH_SERVICE')?.value).toBe('flow-orchestrator');
    expect(env.get('FLOWMESH_ROLE')?.value).toBe('worker');
    expect(env.get('FLOWMESH_WORKER_TAGS')?.value).toBe('default');
    expect(worker.spec.replicas).toBe(2);

    const custom = template('--set', 'worker.replicas=5', '--set', 'worker.tags={python,bun}');
    const scaled = find<DeploymentObject>(custom, 'Deployment', `${prefix}-flow-orchestrator-worker`)!;
    expect(scaled.spec.replicas).toBe(5);
    expect(envOf(mainContainer(scaled)).get('FLOWMESH_WORKER_TAGS')?.value).toBe('python,bun');
    expect(find<DeploymentObject>(custom, 'Deployment', `${prefix}-flow-orchestrator`)!.spec.replicas).toBe(
      1,
    );
  });

  it('runs every pod as non-root without privilege escalation', () => {
    for (const deployment of ofKind<DeploymentObject>(objects, 'Deployment')) {
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      for (const container of pod.containers) {
        expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
        expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
      }
    }
  });

  it('feeds shared config from the ConfigMap and secrets from the Secret', () => {
    const configMap = find<K8sObject & { data: Record<string, string> }>(
      objects,
      'ConfigMap',
      `${prefix}-config`,
    )!;
    expect(configMap.data).toMatchObject({
      NATS_URL: 'nats://nats:4222',
      FLOWMESH_SUBJECT_PREFIX: 'fm',
      FLOWMESH_HTTP_HOST: '0.0.0.0',
    });
    expect(Number(configMap.data.FLOWMESH_SHUTDOWN_TIMEOUT_MS)).toBeLessThan(45_000);
    const secret = find<K8sObject & { data: Record<string, string> }>(
      objects,
      'Secret',
      `${prefix}-secrets`,
    )!;
    expect(Object.keys(secret.data).sort()).toEqual([
      'DATABASE_URL',
      'FLOWMESH_ADMIN_TOKEN',
      'FLOWMESH_JOB_TOKEN_KEY',
      'FLOWMESH_JOB_TOKEN_STORE_KEYS',
      'FLOWMESH_RESUME_KEY',
      'FLOWMESH_SECRET_KEYS',
    ]);
    const decoded = (key: string) => Buffer.from(secret.data[key] ?? '', 'base64').toString();
    expect(decoded('FLOWMESH_ADMIN_TOKEN')).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(decoded('FLOWMESH_JOB_TOKEN_KEY')).toMatch(/^[A-Za-z0-9]{48}$/);
    // One current AES-256 key each: 32 random bytes, base64.
    for (const keyring of ['FLOWMESH_SECRET_KEYS', 'FLOWMESH_JOB_TOKEN_STORE_KEYS']) {
      const [keyId, key] = decoded(keyring).split(':');
      expect(keyId).toBe('k1');
      expect(Buffer.from(key ?? '', 'base64')).toHaveLength(32);
    }
    // Production keys reach only the service that uses them.
    const keysOf = (deployment: DeploymentObject) =>
      [...envOf(mainContainer(deployment)).keys()].filter((name) => /_KEYS?$/.test(name)).sort();
    const deployments = ofKind<DeploymentObject>(objects, 'Deployment');
    const byName = (suffix: string) => deployments.find((d) => d.metadata.name === `${prefix}-${suffix}`)!;
    expect(keysOf(byName('resource-registry'))).toEqual(['FLOWMESH_JOB_TOKEN_KEY', 'FLOWMESH_SECRET_KEYS']);
    expect(keysOf(byName('flow-orchestrator'))).toEqual([
      'FLOWMESH_JOB_TOKEN_STORE_KEYS',
      'FLOWMESH_RESUME_KEY',
    ]);
    expect(keysOf(byName('flow-orchestrator-worker'))).toEqual([
      'FLOWMESH_JOB_TOKEN_STORE_KEYS',
      'FLOWMESH_RESUME_KEY',
    ]);
    // agent-runtime keeps the job tokens of the steps it accepted sealed, with the orchestrator's keys.
    expect(keysOf(byName('agent-runtime'))).toEqual(['FLOWMESH_JOB_TOKEN_STORE_KEYS']);
    expect(keysOf(byName('llm-gateway'))).toEqual([]);
    for (const deployment of ofKind<DeploymentObject>(objects, 'Deployment')) {
      const container = mainContainer(deployment);
      expect(container.envFrom.map((e) => e.configMapRef?.name)).toContain(configMap.metadata.name);
      const env = envOf(container);
      // The admin token reaches the registry only (issue 21): no other pod, so no script, has it.
      expect(env.get('FLOWMESH_ADMIN_TOKEN')?.valueFrom?.secretKeyRef).toEqual(
        deployment.metadata.name === `${prefix}-resource-registry`
          ? { name: secret.metadata.name, key: 'FLOWMESH_ADMIN_TOKEN' }
          : undefined,
      );
      // DATABASE_URL is the service's own role's (database-roles.test.ts), not the Secret's.
      expect(env.get('DATABASE_URL')?.valueFrom).toBeUndefined();
    }
  });
});

describe('helm template with values set', () => {
  const decode = (value: string | undefined) => Buffer.from(value ?? '', 'base64').toString();

  it('puts the NATS and Postgres endpoints into the ConfigMap and the Secret', () => {
    const objects = template(
      ...set({
        'nats.url': 'nats://nats.infra.svc:4222',
        subjectPrefix: 'staging',
        'postgres.host': 'db.infra.svc',
        'postgres.port': 6432,
        'postgres.database': 'fm_prod',
        'postgres.user': 'fm',
        'postgres.sslmode': 'require',
        'secret.adminToken': 's3cret-admin',
        'otel.endpoint': 'http://otel-collector:4318',
      }),
      '--set-string',
      'postgres.password=p@ss/w rd:1',
    );
    const configMap = find<K8sObject & { data: Record<string, string> }>(
      objects,
      'ConfigMap',
      `${prefix}-config`,
    )!;
    expect(configMap.data).toMatchObject({
      NATS_URL: 'nats://nats.infra.svc:4222',
      FLOWMESH_SUBJECT_PREFIX: 'staging',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
    });
    const secret = find<K8sObject & { data: Record<string, string> }>(
      objects,
      'Secret',
      `${prefix}-secrets`,
    )!;
    const databaseUrl = decode(secret.data.DATABASE_URL);
    expect(databaseUrl).toBe('postgres://fm:p%40ss%2Fw%20rd%3A1@db.infra.svc:6432/fm_prod?sslmode=require');
    const parsed = new URL(databaseUrl);
    expect(decodeURIComponent(parsed.password)).toBe('p@ss/w rd:1');
    expect(parsed.hostname).toBe('db.infra.svc');
    expect(decode(secret.data.FLOWMESH_ADMIN_TOKEN)).toBe('s3cret-admin');
  });

  it('keeps given production keys and refuses a job token key that is too short', () => {
    const objects = template(
      ...set({ 'secret.secretKeys': 'k2:AAAA\\,k1:BBBB', 'secret.jobTokenKey': 'j'.repeat(32) }),
    );
    const secret = find<K8sObject & { data: Record<string, string> }>(
      objects,
      'Secret',
      `${prefix}-secrets`,
    )!;
    expect(decode(secret.data.FLOWMESH_SECRET_KEYS)).toBe('k2:AAAA,k1:BBBB');
    expect(decode(secret.data.FLOWMESH_JOB_TOKEN_KEY)).toBe('j'.repeat(32));
    expect(() => template(...set({ 'secret.jobTokenKey': 'short' }))).toThrow(
      /helm template stderr: expected 'Error: values don/,
    );
  });

  it('takes a whole postgres.url as is', () => {
    const objects = template('--set', 'postgres.url=postgres://a:b@pg:5432/x');
    const secret = find<K8sObject & { data: Record<string, string> }>(
      objects,
      'Secret',
      `${prefix}-secrets`,
    )!;
    expect(decode(secret.data.DATABASE_URL)).toBe('postgres://a:b@pg:5432/x');
  });

  it('uses an existing Secret instead of creating one', () => {
    const objects = template('--set', 'secret.existingSecret=flowmesh-managed');
    // Only the NATS users' and the database roles' Secrets (both on by default) remain the chart's.
    expect(ofKind(objects, 'Secret').map((s) => s.metadata.name)).toEqual([
      `${prefix}-nats-users`,
      `${prefix}-nats-authorization`,
      `${prefix}-database-roles`,
    ]);
    const registry = ofKind<DeploymentObject>(objects, 'Deployment').find(
      (deployment) => deployment.metadata.name === `${prefix}-resource-registry`,
    )!;
    expect(envOf(mainContainer(registry)).get('FLOWMESH_ADMIN_TOKEN')?.valueFrom?.secretKeyRef?.name).toBe(
      'flowmesh-managed',
    );
  });

  it('applies per-service replicas and env, global extraEnv, and the image', () => {
    const objects = template(
      ...set({
        'services.llm-gateway.replicas': 3,
        'services.llm-gateway.env.FLOWMESH_OUTBOUND_ALLOW_CIDRS': '10.0.0.0/8',
        'extraEnv.FLOWMESH_OUTBOUND_ALLOW_CIDRS': '192.168.0.0/16',
        'extraEnv.S3_BUCKET': 'flowmesh',
        'image.repository': 'registry.local/fm',
        'image.tag': 'abc123',
      }),
    );
    const gateway = find<DeploymentObject>(objects, 'Deployment', `${prefix}-llm-gateway`)!;
    expect(gateway.spec.replicas).toBe(3);
    const env = envOf(mainContainer(gateway));
    expect(env.get('FLOWMESH_OUTBOUND_ALLOW_CIDRS')?.value, 'the service setting wins').toBe('10.0.0.0/8');
    expect(env.get('S3_BUCKET')?.value).toBe('flowmesh');
    const registry = envOf(
      mainContainer(find<DeploymentObject>(objects, 'Deployment', `${prefix}-resource-registry`)!),
    );
    expect(registry.get('FLOWMESH_OUTBOUND_ALLOW_CIDRS')?.value).toBe('192.168.0.0/16');
    expect(mainContainer(gateway).image).toBe('registry.local/fm:abc123');
  });

  it('leaves out a disabled service, its Service, its routes and (for the orchestrator) the worker', () => {
    const objects = template(
      '--set',
      'services.flow-orchestrator.enabled=false',
      '--set',
      'ingress.enabled=true',
    );
    const names = objects.map((o) => o.metadata.name);
    expect(names).not.toContain(`${prefix}-flow-orchestrator`);
    expect(names).not.toContain(`${prefix}-flow-orchestrator-worker`);
    const ingress = ofKind<IngressObject>(objects, 'Ingress')[0];
    const backends = ingress.spec.rules[0].http.paths.map((p) => p.backend.service.name);
    expect(backends).not.toContain(`${prefix}-flow-orchestrator`);
    expect(backends.length).toBe(HTTP_ROUTES.filter((r) => r.service !== 'flow-orchestrator').length);
  });
});

describe('the Ingress', () => {
  let objects: K8sObject[];
  let ingress: IngressObject;
  beforeAll(() => {
    objects = template(
      '--set',
      'ingress.enabled=true',
      '--set',
      'ingress.host=flowmesh.example.com',
      '--set',
      'ingress.className=public-nginx',
    );
    ingress = ofKind<IngressObject>(objects, 'Ingress')[0]!;
  });

  it('routes one path per entry of the contracts route table, each to its service', () => {
    expect(ingress).toBeDefined();
    const paths = ingress.spec.rules[0].http.paths;
    expect(paths).toHaveLength(HTTP_ROUTES.length);
    HTTP_ROUTES.forEach((route, i) => {
      const path = paths[i];
      expect(path.path, route.path).toBe(routePattern(route.path).replace(/^\^/, ''));
      expect(path.path.startsWith('/'), 'Kubernetes requires an absolute path').toBe(true);
      expect(path.pathType).toBe('ImplementationSpecific');
      expect(path.backend.service.name).toBe(`${prefix}-${route.service}`);
      const service = find<ServiceObject>(objects, 'Service', path.backend.service.name);
      expect(service?.spec.ports.map((p) => p.name)).toContain(path.backend.service.port.name);
    });
  });

  it('matches what the local gateway matches: each route and the paths below it', () => {
    const regexes = ingress.spec.rules[0].http.paths.map((p) => new RegExp(`^${p.path}`));
    HTTP_ROUTES.forEach((route, i) => {
      const sample = route.path.replace(/\*/g, 'main');
      expect(regexes[i].test(sample), sample).toBe(true);
      expect(regexes[i].test(`${sample}/deeper/x`), `${sample}/deeper/x`).toBe(true);
      expect(regexes[i].test(`${sample}x`), `${sample}x is another route`).toBe(false);
    });
  });

  it('uses the configured class and host, with regex paths switched on for ingress-nginx', () => {
    expect(ingress.spec.ingressClassName).toBe('public-nginx');
    expect(ingress.spec.rules[0].host).toBe('flowmesh.example.com');
    expect(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/use-regex']).toBe('true');
    expectValidManifests([ingress]);
  });

  it('reads its paths from files/routes.json', () => {
    const file = JSON.parse(readFileSync(join(chart, 'files/routes.json'), 'utf8')) as {
      routes: { regex: string }[];
    };
    expect(ingress.spec.rules[0].http.paths.map((p) => `^${p.path}`)).toEqual(
      file.routes.map((r) => r.regex),
    );
  });
});
