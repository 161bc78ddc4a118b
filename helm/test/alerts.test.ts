import { describe, expect, it } from 'vitest';
import { renderChart } from './render-chart.js';

interface Rule {
  alert: string;
  expr: string;
  labels: Record<string, string>;
}
interface RenderedObject {
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec?: { groups: { name: string; rules: Rule[] }[] };
}

/** The chart's alert rules page on failures of ours only (seed 001's fault classes). */
describe('alert rules', () => {
  it('are off by default (they need the prometheus-operator CRD)', () => {
    expect(renderChart<RenderedObject>().filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
  });

  it('page on fault="internal" only, for gateway calls and AI steps, never on user-class failures', () => {
    const rules = renderChart<RenderedObject>(
      '--set',
      'metrics.alerts.enabled=true',
      '--set',
      'metrics.alerts.labels.release=kube-prometheus-stack',
    ).filter((o) => o.kind === 'PrometheusRule');
    expect(rules).toHaveLength(1);
    expect(rules[0].metadata.labels.release).toBe('kube-prometheus-stack');
    const alerts = rules[0].spec!.groups.flatMap((group) => group.rules);
    expect(alerts.map((rule) => rule.alert).sort()).toEqual([
      'FlowmeshAgentStepsFailingInternal',
      'FlowmeshLlmCallsFailingInternal',
    ]);
    const metrics = alerts.map((rule) => /(flowmesh_[a-z_]+_total)\{/.exec(rule.expr)?.[1]);
    expect(metrics.sort()).toEqual([
      'flowmesh_agent_step_failures_total',
      'flowmesh_llm_call_failures_total',
    ]);
    for (const rule of alerts) {
      expect(rule.expr).toContain('fault="internal"');
      expect(rule.expr).not.toContain('fault="user"');
      expect(rule.expr).toContain('namespace="flowmesh-test"');
      expect(rule.labels.severity).toBe('page');
    }
  });
});
