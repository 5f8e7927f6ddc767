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
// A file that failed without a failing test (it did not load, or a hook threw) counts once; vitest's
// numFailedTestSuites also counts the describe blocks around a failing test, so it is not added as is.
const brokenFiles = (r.testResults ?? []).filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed')).length;
const failed = (r.numFailedTests ?? 0) + brokenFiles;
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
