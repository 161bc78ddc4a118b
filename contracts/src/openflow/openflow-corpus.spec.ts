import { describe, expect, it } from 'vitest';
import { corpusData, corpusFiles, expectedErrors } from '../../test/openflow/corpus.js';
import { parseOpenFlow } from './parse-openflow.js';
import { serializeOpenFlow } from './serialize-openflow.js';

describe('valid OpenFlow corpus', () => {
  const files = corpusFiles('valid');

  it('holds at least 40 flows', () => {
    expect(files.length).toBeGreaterThanOrEqual(40);
  });

  describe.each(files.map((file) => [file.name, file] as const))('%s', (_name, file) => {
    const written = corpusData(file);

    it('parses without errors, keeping every field as written', () => {
      const result = parseOpenFlow(file.text, { format: file.format });
      expect(result.ok ? [] : result.errors).toEqual([]);
      expect(result.ok && result.flow).toStrictEqual(written);
    });

    it.each(['json', 'yaml'] as const)('round-trips through %s without losing a field', (format) => {
      const first = parseOpenFlow(written);
      if (!first.ok) throw new Error(JSON.stringify(first.errors));
      const again = parseOpenFlow(serializeOpenFlow(first.flow, format), { format });
      expect(again.ok && again.kind).toBe(first.kind);
      expect(again.ok && again.flow).toStrictEqual(written);
    });
  });
});

describe('invalid OpenFlow corpus', () => {
  const files = corpusFiles('invalid');

  it('holds at least 30 flows', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
  });

  it.each(files.map((file) => [file.name, file] as const))('%s reports exactly its errors', (_name, file) => {
    const result = parseOpenFlow(file.text, { format: file.format });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.map((error) => `${error.path}: ${error.message}`)).toEqual(
      expectedErrors(file),
    );
  });
});
