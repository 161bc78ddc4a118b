import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identity, js, startEngineMesh, type EngineMesh } from '../support/engine-mesh.js';

describe('engine smoke', () => {
  let mesh: EngineMesh;
  beforeAll(async () => {
    mesh = await startEngineMesh();
  }, 60_000);
  afterAll(async () => {
    await mesh?.stop();
  });

  it('runs identity steps and returns the last result', async () => {
    const job = await mesh.runFlow({ modules: [identity('a'), identity('b')] }, { x: 1 });
    expect(job.status).toBe('completed');
    expect(job.result).toEqual({ x: 1 });
  });

  it('runs a loop of identities with a transform', async () => {
    const job = await mesh.runFlow(
      {
        modules: [
          {
            id: 'loop',
            value: {
              type: 'forloopflow',
              iterator: { type: 'javascript', expr: 'flow_input.items' },
              skip_failures: false,
              modules: [{ id: 'body', value: { type: 'identity' } }],
            },
          },
          { id: 'after', value: { type: 'identity' }, stop_after_if: { expr: 'result.length === 3' } },
        ],
      },
      { items: [1, 2, 3] },
    );
    expect(job.status).toBe('completed');
    expect((job.result as unknown[]).length).toBe(3);
    void js;
  });
});
