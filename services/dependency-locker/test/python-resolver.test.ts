import { type MeshError } from '@flowmesh/contracts';
import { buildPythonIndex, pipAvailable } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipReportResolver } from '../src/python/python-lock.resolver.js';

// pip's own resolution (`--dry-run --report`) against a file:// index of wheels built here: no
// network, nothing installed. uv is not on this machine; its resolver is the same shape.
describe.skipIf(!pipAvailable)('dependency-locker: python3 locks with pip', () => {
  let index: ReturnType<typeof buildPythonIndex>;
  let pip: PipReportResolver;

  beforeAll(() => {
    index = buildPythonIndex({
      'fmtest-py': { '1.0.0': [], '1.1.0': ['fmtest-dep>=2'] },
      'fmtest-dep': { '2.0.0': [], '2.5.0': [] },
    });
    pip = new PipReportResolver({ resolver: 'pip', interpreter: 'python3', indexUrl: index.url }, 120_000);
  }, 120_000);

  afterAll(() => index?.remove());

  it('resolves the newest versions with their dependencies, in Windmill’s lock format', async () => {
    const lock = await pip.resolve({ 'fmtest-py': 'latest' });
    expect(lock).toMatch(/^# py: 3\.\d+\nfmtest-dep==2\.5\.0\nfmtest-py==1\.1\.0$/);
  }, 120_000);

  it('keeps a pin and names what the index does not have', async () => {
    expect((await pip.resolve({ 'fmtest-py': '==1.0.0' })).split('\n').slice(1)).toEqual([
      'fmtest-py==1.0.0',
    ]);
    const failure = await pip.resolve({ 'fmtest-missing': 'latest' }).then(
      () => undefined,
      (error: unknown) => error as MeshError,
    );
    expect(failure?.code).toBe('VALIDATION_FAILED');
    expect(failure?.message).toContain('fmtest-missing');
  }, 120_000);
});
