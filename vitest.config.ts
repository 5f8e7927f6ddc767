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
    // A worker runs its files one after another in one process and module graph: the imports (three,
    // the engine, the WASM builds) load once per worker, not once per file, and what helpers cache per
    // process (built databases) is shared. Test files keep no state in modules they share. Measured on
    // this 2-core machine, back to back: 410 s against 468 s of vitest (user CPU 10m11s against 11m47s).
    isolate: false,
    // Files in parallel on every core (vitest's default leaves one idle: on this project's 2-core
    // machines that ran the files one after another). Each file's own tests still run in order.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
