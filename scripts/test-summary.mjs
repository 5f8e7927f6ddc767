// Prints "N passed, N failed[, N skipped]" from vitest's JSON report (used by .ci/run).
import { readFileSync, existsSync } from 'node:fs';

const file = process.argv[2] ?? 'test-artifacts/vitest-report.json';
if (!existsSync(file)) {
  console.log('0 passed, 1 failed');
  console.error(`test-summary: no report at ${file} (the test run did not finish)`);
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const passed = r.numPassedTests ?? 0;
const failed = (r.numFailedTests ?? 0) + (r.numFailedTestSuites ?? 0);
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
