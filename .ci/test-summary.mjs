// Reads vitest's JSON report and prints, last on screen, what a reader of a CI log needs: each
// failing test (or test file that could not run) with the first lines of its error, then one
// closing line `tests: N passed, N failed, N skipped`.
// Usage: node .ci/test-summary.mjs <report.json>
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const ERROR_LINES = 6;
// A line of an error can hold a whole serialized value: cut, so the reason stays on screen.
const LINE_CHARS = 400;
const reportPath = process.argv[2];
let report;
try {
  report = JSON.parse(readFileSync(reportPath, 'utf8'));
} catch (error) {
  console.log(`\nno test report at ${reportPath} (${error.message}): the test run ended before writing it`);
  console.log('tests: 0 passed, 1 failed, 0 skipped');
  process.exit(0);
}

const firstLines = (text) =>
  stripVTControlCharacters(text)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, ERROR_LINES)
    .map((line) =>
      line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}... [${line.length} chars]` : line,
    )
    .map((line) => `      ${line}`)
    .join('\n');

const failures = [];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of report.testResults ?? []) {
  const name = relative(process.cwd(), file.name);
  const tests = file.assertionResults ?? [];
  for (const test of tests) {
    if (test.status === 'passed') passed += 1;
    else if (test.status === 'failed') {
      failed += 1;
      const error = (test.failureMessages ?? []).join('\n') || 'no error message';
      failures.push(`  ${name} > ${test.fullName}\n${firstLines(error)}`);
    } else skipped += 1;
  }
  // A file that failed outside its tests (an import, a beforeAll, an unhandled error).
  if (file.status === 'failed' && !tests.some((test) => test.status === 'failed')) {
    failed += 1;
    failures.push(`  ${name} (the file itself)\n${firstLines(file.message || 'no error message')}`);
  }
}
// Errors vitest reports outside any test (an unhandled rejection in a worker) fail the run too.
if (report.success === false && failed === 0) {
  failed += 1;
  failures.push('  the run reported failure outside any test (unhandled error): see the log above');
}

// Where the time went: the slowest files, so a suite that creeps towards CI's limit shows why.
const SLOWEST = 8;
const durations = (report.testResults ?? [])
  .filter((file) => file.startTime && file.endTime)
  .map((file) => ({ name: relative(process.cwd(), file.name), ms: file.endTime - file.startTime }))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, SLOWEST);
if (durations.length > 0) {
  console.log(`\nslowest files:`);
  for (const { name, ms } of durations) console.log(`  ${(ms / 1000).toFixed(0).padStart(5)} s  ${name}`);
}

if (failures.length > 0) console.log(`\nfailed (${failures.length}):\n${failures.join('\n')}`);
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
