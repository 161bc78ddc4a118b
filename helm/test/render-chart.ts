import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { expect } from 'vitest';
import { runHelm } from './helm-binary.js';

export const CHART_DIR = fileURLToPath(new URL('../flowmesh', import.meta.url));

/** `helm template rel helm/flowmesh` with these arguments, as objects; fails on any stderr. */
export function renderChart<T>(...args: string[]): T[] {
  const result = runHelm(['template', 'rel', CHART_DIR, '--namespace', 'flowmesh-test', ...args]);
  expect(result.stderr, 'helm template stderr').toBe('');
  expect(result.status).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS() as T | null)
    .filter((obj): obj is T => obj !== null);
}
