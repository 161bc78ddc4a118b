import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { userStack } from './user-stack.js';

const install = fileURLToPath(new URL('../../../../', import.meta.url));

describe('userStack', () => {
  it("keeps the error and the script's frames, drops the worker's, Node's and dependencies'", () => {
    const stack = [
      'QuotaError: quota reached',
      '    at main (file:///f/demo/quota.ts:3:9)',
      '    at helper (file:///f/demo/quota.ts:7:3)',
      `    at runJob (file://${install}services/flow-orchestrator/dist/runners/typescript/typescript-job.thread.js:120:5)`,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)',
      '    at Object.get (/srv/x/node_modules/lib/index.js:1:1)',
    ].join('\n');
    expect(userStack(stack)).toBe(
      [
        'QuotaError: quota reached',
        '    at main (file:///f/demo/quota.ts:3:9)',
        '    at helper (file:///f/demo/quota.ts:7:3)',
      ].join('\n'),
    );
  });

  it("drops a Python frame of the worker with its source line, keeps the script's", () => {
    const stack = [
      'Traceback (most recent call last):',
      `  File "${install}services/flow-orchestrator/dist/runners/python/wrapper.py", line 40, in run`,
      '    result = main(**args)',
      '  File "/tmp/flowmesh-jobs/j1/main.py", line 2, in main',
      '    raise ValueError("bad")',
      'ValueError: bad',
    ].join('\n');
    expect(userStack(stack)).toBe(
      [
        'Traceback (most recent call last):',
        '  File "/tmp/flowmesh-jobs/j1/main.py", line 2, in main',
        '    raise ValueError("bad")',
        'ValueError: bad',
      ].join('\n'),
    );
  });
});
