import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

type ComponentMap = Record<string, unknown>;
interface Pipeline {
  receivers: string[];
  processors?: string[];
  exporters: string[];
}
interface CollectorConfig {
  receivers: ComponentMap;
  processors: ComponentMap;
  exporters: ComponentMap;
  connectors?: ComponentMap;
  extensions?: ComponentMap;
  service: { extensions?: string[]; pipelines: Record<string, Pipeline> };
}

describe('deploy/otel-collector.yaml', () => {
  const config = parse(readFileSync(join(repoRoot, 'deploy/otel-collector.yaml'), 'utf8')) as CollectorConfig;

  it('receives OTLP over gRPC and HTTP on the standard ports', () => {
    const otlp = config.receivers.otlp as { protocols: Record<string, { endpoint: string }> };
    expect(otlp.protocols.grpc?.endpoint).toMatch(/:4317$/);
    expect(otlp.protocols.http?.endpoint).toMatch(/:4318$/);
  });

  it('exports every signal to the debug exporter and an OTLP backend', () => {
    for (const signal of ['traces', 'metrics', 'logs']) {
      const pipeline = config.service.pipelines[signal];
      expect(pipeline, signal).toBeDefined();
      expect(pipeline.receivers).toContain('otlp');
      expect(pipeline.exporters).toContain('debug');
      expect(pipeline.exporters.some((e) => e === 'otlp' || e.startsWith('otlp/'))).toBe(true);
    }
  });

  it('references only components it defines, and uses each connector on both sides', () => {
    const connectors = Object.keys(config.connectors ?? {});
    const defined = (kind: 'receivers' | 'processors' | 'exporters', name: string) =>
      Object.hasOwn(config[kind], name) || (kind !== 'processors' && connectors.includes(name));
    for (const [name, pipeline] of Object.entries(config.service.pipelines)) {
      for (const r of pipeline.receivers) expect(defined('receivers', r), `${name} receiver ${r}`).toBe(true);
      for (const p of pipeline.processors ?? [])
        expect(defined('processors', p), `${name} processor ${p}`).toBe(true);
      for (const e of pipeline.exporters) expect(defined('exporters', e), `${name} exporter ${e}`).toBe(true);
      // The memory limiter must run first to protect the collector.
      if (pipeline.processors?.includes('memory_limiter'))
        expect(pipeline.processors[0]).toBe('memory_limiter');
    }
    const pipelines = Object.values(config.service.pipelines);
    for (const connector of connectors) {
      expect(
        pipelines.some((p) => p.exporters.includes(connector)),
        `${connector} fed`,
      ).toBe(true);
      expect(
        pipelines.some((p) => p.receivers.includes(connector)),
        `${connector} read`,
      ).toBe(true);
    }
    for (const extension of config.service.extensions ?? [])
      expect(config.extensions).toHaveProperty([extension]);
  });
});

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets: { refId: string; expr: string }[];
}

describe('deploy/dashboards', () => {
  const dir = join(repoRoot, 'deploy/dashboards');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

  it('has at least one dashboard', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s is a Grafana dashboard with valid panels', (file) => {
    const dashboard = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      uid: string;
      title: string;
      schemaVersion: number;
      panels: Panel[];
      templating: { list: { name: string }[] };
    };
    expect(dashboard.uid).toMatch(/^[\w-]{1,40}$/);
    expect(dashboard.title).toBeTruthy();
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size, 'unique panel ids').toBe(ids.length);
    const variables = new Set([
      '__rate_interval',
      '__interval',
      '__all',
      ...dashboard.templating.list.map((v) => v.name),
    ]);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.x + panel.gridPos.w, `${panel.title} fits the 24-column grid`).toBeLessThanOrEqual(
        24,
      );
      expect(panel.targets.length, `${panel.title} has queries`).toBeGreaterThan(0);
      for (const target of panel.targets) {
        // Every $variable a query uses is defined, so no panel silently queries "$service".
        for (const [, name] of target.expr.matchAll(/\$\{?(\w+)\}?/g))
          expect(variables, `${panel.title}: $${name}`).toContain(name);
        expect(balanced(target.expr), `${panel.title}: balanced brackets in ${target.expr}`).toBe(true);
      }
      if (panel.datasource) expect(variables).toContain(panel.datasource.uid.replace(/^\$\{?|\}$/g, ''));
    }
    const titles = dashboard.panels.map((p) => p.title.toLowerCase()).join(' | ');
    expect(titles).toMatch(/replicas|health/);
    expect(titles).toMatch(/request rate/);
    expect(titles).toMatch(/nats hop latency/);
  });
});

function balanced(expr: string): boolean {
  const stack: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (const ch of expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if ('([{'.includes(ch)) stack.push(ch);
    else if (ch in pairs && stack.pop() !== pairs[ch]) return false;
  }
  return stack.length === 0;
}
