import { formatVersions } from './agent-versions.js';
import type { EvalRecord } from './run-eval.js';

/** `CASE  RESULT  JOB  AGENTS` with one row per case, then `N passed, N failed`. */
export function evalTable(records: readonly EvalRecord[]): string {
  const rows = [
    ['CASE', 'RESULT', 'JOB', 'AGENTS'],
    ...records.map((record) => [
      record.case,
      record.pass ? 'pass' : record.success ? 'FAIL' : 'FAIL (run failed)',
      record.job,
      formatVersions(record.agents),
    ]),
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
