/**
 * The order test files start in. Vitest starts the files that took longest in its last run first
 * (its timings live in node_modules/.vite), so that no long file starts near the end and runs
 * alone. A fresh clone has no timings: vitest then starts the largest files first, and the longest
 * one (the tuning sweep on the real captures, a small file) started 281 s into a 370 s run. Without
 * timings this sequencer orders each project's files by EXPECTED_SECONDS instead.
 * The browser files, whose workers mostly wait on Chromium, start close together this way (the two
 * longest overlap for 47 s). Spreading them apart, so that one waits while two workers compute, was
 * slower (2026-12-07, back to back on 2 cores: 413 s of vitest against 354 s; user CPU 8 min 27 s
 * against 7 min 9 s): three CPU-bound files, each with its child processes and threads, cost more
 * CPU together than the idle time they fill.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each of the longest files took in one run of the suite on a 2-core VM (2026-12-07, 3
 * workers, 303 s; the working tree after the charts and test-size changes of that day). Files
 * missing from the table run after these in vitest's own order (builtin-cache and mmdb-files,
 * missing from an earlier table, had started 309 and 231 s into a 336 s run).
 */
const EXPECTED_SECONDS: Record<string, number> = {
  'test/web/browser.test.ts': 50,
  'test/apps/tune-real.test.ts': 46,
  'test/package/pack-install.test.ts': 32,
  'test/web/character.test.ts': 29,
  'test/apps/coverage.test.ts': 26,
  'test/web/overlay.test.ts': 26,
  'test/sim/overlay-simulate.test.ts': 24,
  'test/web/lod-browser.test.ts': 22,
  'test/apps/cli-build.test.ts': 20,
  'test/apps/cli-search.test.ts': 19,
  'test/search/search-compact.test.ts': 19,
  'test/sim/terrain-overlay-parallel.test.ts': 18,
  'test/sim/terrain-cli.test.ts': 17,
  'test/apps/bench.test.ts': 16,
  'test/apps/merge.test.ts': 16,
  'test/apps/tune.test.ts': 16,
  'test/search/search.test.ts': 16,
  'test/web/terrain-browser.test.ts': 14,
  'test/apps/builtin-cache.test.ts': 13,
  'test/apps/demo.test.ts': 11,
  'test/apps/hostile-b.test.ts': 10,
  'test/package/package-root.test.ts': 10,
  'test/web/demo-tags.test.ts': 10,
  'test/web/demo-compact-cache.test.ts': 9,
  'test/sim/shard.test.ts': 8,
  'test/web/character-cli.test.ts': 8,
  'test/bench/native-compare.test.ts': 7,
  'test/import/bvh-three-oracle.test.ts': 7,
  'test/runtime/controller.test.ts': 7,
  'test/database/compact.test.ts': 6,
};

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const path = (f: TestSpecification): string => relative(root, f.moduleId).split('\\').join('/');
    if (sorted.every((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${path(f)}`) !== undefined)) return sorted;
    // Projects keep the order vitest gave them; within one, the longest expected first, the rest as vitest had them.
    const group = new Map<string, number>();
    sorted.forEach((f) => { if (!group.has(f.project.name)) group.set(f.project.name, group.size); });
    const key = sorted.map((f, i) => ({ f, g: group.get(f.project.name)!, s: EXPECTED_SECONDS[path(f)] ?? 0, i }));
    key.sort((a, b) => a.g - b.g || b.s - a.s || a.i - b.i);
    return key.map((k) => k.f);
  }
}
