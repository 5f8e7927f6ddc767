import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One temporary folder for the whole run (TMPDIR), removed at the end: nothing is left in /tmp.
    // browser-setup.ts: one Chromium for every browser test file, launched on the first file's request.
    globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/browser-setup.ts'],
    // The compiled CLI that runCliInProcess (test/helpers/cli.ts) calls: loaded by Node itself, as
    // bin/motionmatch.js loads it, not rewritten by vitest.
    server: { deps: { external: [/\/dist\/src\//] } },
    // The JSON report is what .ci/run reads to print "N passed, N failed".
    reporters: ['default', ['json', { outputFile: 'test-artifacts/vitest-report.json' }]],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files in parallel on every core (vitest's default leaves one idle: on this project's 2-core
    // machines that ran the files one after another). Each file's own tests still run in order.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
