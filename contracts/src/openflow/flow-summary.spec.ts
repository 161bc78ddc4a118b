import { describe, expect, it } from 'vitest';
import { countFlowModules } from './flow-summary.js';
import { parseOpenFlow } from './parse-openflow.js';

describe('countFlowModules', () => {
  it('counts every step by type, nested and special ones included, and agent tools apart', () => {
    const result = parseOpenFlow({
      modules: [
        { id: 'a', value: { type: 'rawscript', language: 'bun', content: '', input_transforms: {} } },
        {
          id: 'b',
          value: {
            type: 'branchone',
            branches: [{ expr: 'true', modules: [{ id: 'c', value: { type: 'identity' } }] }],
            default: [
              { id: 'd', value: { type: 'rawscript', language: 'bash', content: '', input_transforms: {} } },
            ],
          },
        },
        {
          id: 'e',
          value: {
            type: 'aiagent',
            agent: 'f/agents/x',
            input_transforms: {},
          },
        },
      ],
      failure_module: { id: 'failure', value: { type: 'script', path: 'f/x', input_transforms: {} } },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const counts = countFlowModules(result.value);
    expect(counts.modules).toBe(6);
    expect(counts.tools).toBe(0);
    expect([...counts.byType]).toEqual([
      ['rawscript', 2],
      ['aiagent', 1],
      ['branchone', 1],
      ['identity', 1],
      ['script', 1],
    ]);
  });
});
