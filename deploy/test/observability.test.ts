import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MESH_PROCESSES } from '@flowmesh/contracts';
import {
  FLOWMESH_METRICS,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TIME_TO_FIRST_CHUNK,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  METRIC_GEN_AI_EXECUTE_TOOL_DURATION,
  METRIC_GEN_AI_INVOKE_AGENT_DURATION,
  prometheusSeriesNames,
} from '@flowmesh/telemetry';
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

interface PrometheusTarget {
  refId: string;
  expr: string;
}
interface TraceQlTarget {
  refId: string;
  queryType: 'traceql';
  query: string;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets: (PrometheusTarget | TraceQlTarget)[];
}

/**
 * Every series a panel may query: the mesh's own (the catalogue, which e2e/observability.test.ts
 * scrapes from the running processes), the GenAI and HTTP histograms the SDK records, the
 * exporter's target_info, the collector's spanmetrics and kube-state-metrics.
 */
const KNOWN_SERIES = new Set([
  ...Object.values(FLOWMESH_METRICS).flatMap(prometheusSeriesNames),
  ...[
    METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
    METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
    METRIC_GEN_AI_CLIENT_TIME_TO_FIRST_CHUNK,
    METRIC_GEN_AI_INVOKE_AGENT_DURATION,
    METRIC_GEN_AI_EXECUTE_TOOL_DURATION,
    'http.server.request.duration',
    'http.client.request.duration',
  ].flatMap((name) => prometheusSeriesNames({ name, kind: 'histogram', unit: '' })),
  'target_info',
  'traces_span_metrics_calls_total',
  ...['bucket', 'sum', 'count'].map((suffix) => `traces_span_metrics_duration_milliseconds_${suffix}`),
  'kube_deployment_status_replicas_available',
]);

/** The metric names a PromQL expression selects: each name before a `{` matcher (our dashboards' style). */
function metricsIn(expr: string): string[] {
  const outsideStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return [...outsideStrings.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((match) => match[1]);
}

describe('deploy/dashboards', () => {
  const dir = join(repoRoot, 'deploy/dashboards');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  const load = (file: string) =>
    JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      uid: string;
      title: string;
      schemaVersion: number;
      panels: Panel[];
      templating: { list: { name: string; query?: string | { query: string } }[] };
    };

  it('has the overview and one dashboard per service family', () => {
    expect(files.sort()).toEqual([
      'flowmesh-ai.json',
      'flowmesh-orchestration.json',
      'flowmesh-overview.json',
      'flowmesh-registry.json',
    ]);
  });

  it.each(files)('%s is a Grafana dashboard with valid panels', (file) => {
    const dashboard = load(file);
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
      // A row only groups the panels below it.
      if (panel.type !== 'row') expect(panel.targets.length, `${panel.title} has queries`).toBeGreaterThan(0);
      for (const target of panel.targets) {
        const text = 'expr' in target ? target.expr : target.query;
        // Every $variable a query uses is defined, so no panel silently queries "$service".
        for (const [, name] of text.matchAll(/\$\{?(\w+)\}?/g))
          expect(variables, `${panel.title}: $${name}`).toContain(name);
        expect(balanced(text), `${panel.title}: balanced brackets in ${text}`).toBe(true);
      }
      if (panel.datasource) expect(variables).toContain(panel.datasource.uid.replace(/^\$\{?|\}$/g, ''));
    }
  });

  it.each(files)('%s: every panel queries metrics that exist, and traces of processes that exist', (file) => {
    const dashboard = load(file);
    const queries = [
      ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ panel: panel.title, target }))),
      ...dashboard.templating.list
        .filter((v) => typeof v.query === 'object')
        .map((v) => ({
          panel: `variable ${v.name}`,
          target: { refId: v.name, expr: (v.query as { query: string }).query },
        })),
    ];
    for (const { panel, target } of queries) {
      if ('expr' in target) {
        const names = target.expr.startsWith('label_values(')
          ? [/^label_values\(([a-zA-Z_:][\w:]*)/.exec(target.expr)?.[1] ?? '']
          : metricsIn(target.expr);
        expect(names.length, `${panel}: ${target.expr} names a metric`).toBeGreaterThan(0);
        for (const name of names) expect(KNOWN_SERIES, `${panel}: ${name}`).toContain(name);
      } else {
        expect(target.queryType, panel).toBe('traceql');
        const services = [...target.query.matchAll(/resource\.service\.name\s*=\s*"([^"]+)"/g)].map(
          (m) => m[1],
        );
        expect(services.length, `${panel} selects a service`).toBeGreaterThan(0);
        for (const service of services)
          expect(
            MESH_PROCESSES.map((p) => p.name),
            `${panel}: ${service}`,
          ).toContain(service);
      }
    }
  });

  it('orchestration has a Triggers row: fires by kind, lateness p50 and p99, failures', () => {
    const panels = load('flowmesh-orchestration.json').panels;
    const row = panels.find((p) => p.type === 'row' && p.title === 'Triggers');
    expect(row).toBeDefined();
    const below = panels.filter((p) => p.gridPos.y > row!.gridPos.y);
    const exprs = below.flatMap((p) => p.targets.map((t) => ('expr' in t ? t.expr : '')));
    expect(exprs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/sum by \(kind\) \(rate\(flowmesh_trigger_fires_total\{/),
        expect.stringMatching(/^histogram_quantile\(0\.5, .*flowmesh_trigger_fire_lateness_seconds_bucket/),
        expect.stringMatching(/^histogram_quantile\(0\.99, .*flowmesh_trigger_fire_lateness_seconds_bucket/),
        expect.stringMatching(/sum by \(kind\) \(rate\(flowmesh_trigger_failures_total\{/),
      ]),
    );
  });

  it('the overview shows health, request rates, NATS hop latency, flows, work lag, AI cost and the outbox', () => {
    const titles = load('flowmesh-overview.json')
      .panels.map((p) => p.title.toLowerCase())
      .join(' | ');
    for (const topic of [
      /replicas|health/,
      /request rate/,
      /nats hop latency/,
      /flows/,
      /lag/,
      /cost/,
      /outbox/,
    ])
      expect(titles).toMatch(topic);
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
