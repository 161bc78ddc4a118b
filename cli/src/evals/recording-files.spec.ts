import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EvalCasesError } from './eval-cases.js';
import {
  checkDistinctFiles,
  defaultRecordingsDir,
  readRecordingFile,
  recordingFileOf,
  writeRecordingFile,
} from './recording-files.js';

const dir = mkdtempSync(join(tmpdir(), 'flowmesh-recording-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const call = {
  operation: 'chat' as const,
  digest: 'a'.repeat(64),
  occurrence: 0,
  request: { provider: { kind: 'openai', model: 'm' } },
  answer: [{ type: 'message' }],
};

describe('recording files', () => {
  it('live beside the cases file, one a case, named after the case', () => {
    expect(defaultRecordingsDir('evals/triage.jsonl')).toBe(join('evals', 'triage.recordings'));
    expect(recordingFileOf('r', 'refund: angry customer')).toBe(join('r', 'refund-angry-customer.json'));
    expect(recordingFileOf('r', '../up')).toBe(join('r', 'up.json'));
    expect(() => checkDistinctFiles('r', ['a b', 'a/b'])).toThrow(
      'cases "a b" and "a/b" would share the recording r/a-b.json: rename one',
    );
  });

  it('are written as pretty JSON and read back; a missing or malformed one is named', async () => {
    const file = join(dir, 'sub', 'case.json');
    await writeRecordingFile(file, { flowmesh_recording: 1, case: 'case', flow: 'flow.yaml', calls: [call] });
    expect(await readRecordingFile(file)).toEqual([call]);
    await expect(readRecordingFile(join(dir, 'none.json'))).rejects.toThrow(
      `${join(dir, 'none.json')}: no recording (record the cases first with --record)`,
    );
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({ flowmesh_recording: 1, case: 'c', flow: 'f', calls: [{ ...call, occurrence: -1 }] }),
    );
    await expect(readRecordingFile(bad)).rejects.toThrow(EvalCasesError);
    await expect(readRecordingFile(bad)).rejects.toThrow(`${bad}: calls.0.occurrence:`);
  });
});
