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

/** Seconds each of the longest files took in one run of the suite on a 2-core VM (2026-12-06, 3 workers). */
const EXPECTED_SECONDS: Record<string, number> = {
  'test/apps/tune-real.test.ts': 54,
  'test/web/browser.test.ts': 38,
  'test/web/overlay.test.ts': 37,
  'test/apps/cli-search.test.ts': 29,
  'test/sim/terrain-overlay-parallel.test.ts': 28,
  'test/web/terrain-browser.test.ts': 28,
  'test/web/demo-compact-cache.test.ts': 27,
  'test/sim/terrain-cli.test.ts': 25,
  'test/search/search-compact.test.ts': 24,
  'test/web/lod-browser.test.ts': 22,
  'test/sim/overlay-simulate.test.ts': 21,
  'test/package/pack-install.test.ts': 21,
  'test/import/bvh-three-oracle.test.ts': 20,
  'test/apps/cli-build.test.ts': 20,
  'test/web/demo-tags.test.ts': 19,
  'test/apps/bench.test.ts': 19,
  'test/apps/coverage.test.ts': 17,
  'test/search/search.test.ts': 17,
  'test/web/character.test.ts': 15,
  'test/apps/merge.test.ts': 13,
  'test/apps/tune.test.ts': 13,
  'test/database/compact-load-rebuild.test.ts': 12,
  'test/database/mmdb.test.ts': 11,
  'test/database/compact.test.ts': 10,
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
