import { formatVersions } from './agent-versions.js';
import type { EvalRecord } from './run-eval.js';

/** `CASE  RESULT  JOB  AGENTS` with one row per case, then `N passed, N failed`. */
export function evalTable(records: readonly EvalRecord[]): string {
  const rows = [
    ['CASE', 'RESULT', 'JOB', 'AGENTS'],
    ...records.map((record) => [record.case, resultOf(record), record.job, formatVersions(record.agents)]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd(),
  );
  const passed = records.filter((record) => record.pass).length;
  return `${lines.join('\n')}\n${passed} passed, ${records.length - passed} failed\n`;
}

function resultOf(record: EvalRecord): string {
  if (record.pass) return 'pass';
  if (record.recording?.mismatch) return 'FAIL (replay differs)';
  if (record.recording?.unused) return 'FAIL (replay: answers unused)';
  return record.success ? 'FAIL' : 'FAIL (run failed)';
}

/**
 * What a replayed case that failed did differently: the first request the recording had no answer
 * for, each differing field with its path, or how many recorded answers were never asked for.
 */
export function replayReport(record: EvalRecord): string {
  const replay = record.recording;
  if (replay?.mode !== 'replay') return '';
  const lines: string[] = [];
  if (replay.mismatch) {
    lines.push(`  ${replay.mismatch.message}`);
    for (const difference of replay.mismatch.differences)
      lines.push(
        `    ${difference.path}`,
        `      expected: ${difference.expected === undefined ? '(absent)' : JSON.stringify(difference.expected)}`,
        `      got:      ${difference.got === undefined ? '(absent)' : JSON.stringify(difference.got)}`,
      );
  } else if (replay.unused)
    lines.push(
      `  replay: ${replay.unused} of the ${replay.calls} recorded answers were not asked for (${replay.file})`,
    );
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
