import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { Interpolator, type ReferenceReader } from './interpolator.js';

/** A reader over fixed items; `hidden` ones answer as a permission check would. */
function reader(
  variables: Record<string, string>,
  resources: Record<string, { resourceType?: string; value: unknown }>,
  hidden: string[] = [],
): ReferenceReader & { reads: string[] } {
  const reads: string[] = [];
  const missing = (path: string) => new MeshError('NOT_FOUND', `item ${path} not found (private detail)`);
  return {
    reads,
    readVariable: (path) => {
      reads.push(`var:${path}`);
      if (hidden.includes(path) || !(path in variables)) return Promise.reject(missing(path));
      return Promise.resolve(variables[path] ?? '');
    },
    readResource: (path) => {
      reads.push(`res:${path}`);
      const resource = resources[path];
      if (hidden.includes(path) || !resource) return Promise.reject(missing(path));
      return Promise.resolve({ resourceType: resource.resourceType ?? 'state', value: resource.value });
    },
  };
}

const limits = { maxDepth: 3, maxReferences: 50 };

async function failure(promise: Promise<unknown>): Promise<MeshError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MeshError) return error;
    throw error;
  }
  throw new Error('expected a MeshError');
}

describe('Interpolator', () => {
  it('resolves whole-string references anywhere in the value, nested resources included', async () => {
    const items = reader(
      { 'u/a/key': 'sk-1' },
      { 'u/a/openai': { value: { api_key: '$var:u/a/key', base_url: 'https://api' } } },
    );
    const value = {
      provider: '$res:u/a/openai',
      list: ['$var:u/a/key', 'text with $var:u/a/key inside', 3, null, true],
    };
    expect(await new Interpolator(items, limits).resolve(value)).toEqual({
      provider: { api_key: 'sk-1', base_url: 'https://api' },
      list: ['sk-1', 'text with $var:u/a/key inside', 3, null, true],
    });
    expect(items.reads.filter((read) => read === 'var:u/a/key')).toHaveLength(1);
  });

  it("leaves an ai_agent's tools as written, in the resource asked for and in a nested one", async () => {
    const agent = {
      provider: { kind: 'openai', resource: '$res:u/a/openai', model: 'm' },
      tools: [
        { id: 't', value: { input_transforms: { key: { type: 'static', value: '$var:u/a/forbidden' } } } },
      ],
    };
    const items = reader(
      {},
      { 'u/a/openai': { value: { api_key: 'k' } }, 'u/a/agent': { resourceType: 'ai_agent', value: agent } },
      ['u/a/forbidden'],
    );
    const resolved = (await new Interpolator(items, limits).resolveResource(
      'u/a/agent',
      'ai_agent',
      agent,
    )) as typeof agent;
    expect(resolved.provider.resource).toEqual({ api_key: 'k' });
    expect(resolved.tools).toEqual(agent.tools);
    const nested = (await new Interpolator(items, limits).resolve({ brain: '$res:u/a/agent' })) as {
      brain: typeof agent;
    };
    expect(nested.brain.tools).toEqual(agent.tools);
    expect(items.reads).not.toContain('var:u/a/forbidden');
  });

  it('a missing and a forbidden reference fail with the same message, naming the reference and where it was', async () => {
    const items = reader({ 'u/a/secret': 'x' }, { 'u/a/creds': { value: { key: '$var:u/a/secret' } } }, [
      'u/a/secret',
    ]);
    const forbidden = await failure(new Interpolator(items, limits).resolve({ c: '$res:u/a/creds' }));
    const absent = await failure(
      new Interpolator(reader({}, { 'u/a/creds': { value: { key: '$var:u/a/secret' } } }), limits).resolve({
        c: '$res:u/a/creds',
      }),
    );
    expect(forbidden.toEnvelope()).toEqual(absent.toEnvelope());
    expect(forbidden).toMatchObject({
      code: 'NOT_FOUND',
      message: 'cannot resolve $var:u/a/secret (at key in $res:u/a/creds): not found',
    });
  });

  it('a cycle is an error listing the chain, a self-reference included', async () => {
    const items = reader(
      {},
      {
        'u/a/x': { value: { next: '$res:u/a/y' } },
        'u/a/y': { value: ['$res:u/a/x'] },
        'u/a/self': { value: '$res:u/a/self' },
      },
    );
    expect(await failure(new Interpolator(items, limits).resolve('$res:u/a/x'))).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'interpolation cycle: $res:u/a/x -> $res:u/a/y -> $res:u/a/x',
    });
    expect(
      (await failure(new Interpolator(items, limits).resolveResource('u/a/self', 'state', '$res:u/a/self')))
        .message,
    ).toBe('interpolation cycle: $res:u/a/self -> $res:u/a/self');
  });

  it('the same resource twice side by side is no cycle', async () => {
    const items = reader({}, { 'u/a/x': { value: 1 } });
    expect(await new Interpolator(items, limits).resolve(['$res:u/a/x', { y: '$res:u/a/x' }])).toEqual([
      1,
      { y: 1 },
    ]);
  });

  it('a chain longer than maxDepth stops with LIMIT_EXCEEDED', async () => {
    const chain = {
      'u/a/r1': { value: '$res:u/a/r2' },
      'u/a/r2': { value: '$res:u/a/r3' },
      'u/a/r3': { value: '$res:u/a/r4' },
      'u/a/r4': { value: 'end' },
    };
    expect(
      await new Interpolator(reader({}, chain), { maxDepth: 4, maxReferences: 50 }).resolve('$res:u/a/r1'),
    ).toBe('end');
    expect(await failure(new Interpolator(reader({}, chain), limits).resolve('$res:u/a/r1'))).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message:
        'interpolation deeper than 3 resources: $res:u/a/r1 -> $res:u/a/r2 -> $res:u/a/r3 -> $res:u/a/r4',
    });
  });

  it('a wide fan-out of references is bounded by maxReferences', async () => {
    const items = reader({ 'u/a/v': 'x' }, {});
    const error = await failure(
      new Interpolator(items, { maxDepth: 3, maxReferences: 5 }).resolve(Array(6).fill('$var:u/a/v')),
    );
    expect(error).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: 'interpolation resolves more than 5 references (at [5])',
    });
  });

  it('a malformed reference path is a validation error naming the reference', async () => {
    const items: ReferenceReader = {
      readVariable: () =>
        Promise.reject(
          new MeshError('VALIDATION_FAILED', 'path "nope" must start with u/<user>/ or f/<folder>/'),
        ),
      readResource: () => Promise.reject(new Error('unused')),
    };
    expect((await failure(new Interpolator(items, limits).resolve({ a: '$var:nope' }))).message).toBe(
      'cannot resolve $var:nope (at a): path "nope" must start with u/<user>/ or f/<folder>/',
    );
  });
});
