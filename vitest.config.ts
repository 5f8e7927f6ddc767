import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/helpers/sequencer.js';

/** The files that measure heap growth (test/helpers/heap-growth.ts). */
const ALLOCATION_TESTS = ['test/sim/step-allocation.test.ts', 'test/three/runtime.test.ts', 'test/three/skinning.test.ts', 'test/util/heap-growth.test.ts'];

export default defineConfig({
  test: {
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
    // The longest files first, also in a fresh clone (test/helpers/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // More workers than cores: the browser tests and the CLIs the tests spawn leave a worker waiting
    // on another process, and a third worker fills that time (2 cores: 355 s against 410 s).
    maxWorkers: Math.max(3, availableParallelism() + 1),
    projects: [
      {
        extends: true,
        // A worker runs its files one after another in one process and module graph: the imports
        // (three, the engine, the WASM builds) load once per worker, not once per file, and what the
        // helpers cache per process (built databases) is shared (2 cores, back to back: 410 s against
        // 468 s of vitest, user CPU 10m11s against 11m47s). Test files keep no state in shared modules.
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ALLOCATION_TESTS, isolate: false },
      },
      {
        extends: true,
        // What V8 boxes depends on the type feedback the process has gathered: after other files had
        // driven three's objects their own ways, apply() allocated 1.8 KB per call (0 alone). The
        // allocation checks measure the code under test, each in a process of its own.
        // Optimised code compiled on the thread that asks for it, from the process's start. Set only
        // at run time (test/helpers/heap-growth.ts sets it too), it did not hold in full runs: two of
        // three measured 110-113 KB over 1,000 apply() + skeleton.update() calls (rootRelativeSkinning)
        // against 0.3-20 KB in every run of these files alone, loaded or not.
        test: { name: 'isolated', include: ALLOCATION_TESTS, isolate: true, execArgv: ['--no-concurrent-recompilation'] },
      },
    ],
  },
});
