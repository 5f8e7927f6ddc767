import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The JSON report is what .ci/run reads to print "N passed, N failed".
    reporters: ['default', ['json', { outputFile: 'test-artifacts/vitest-report.json' }]],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
