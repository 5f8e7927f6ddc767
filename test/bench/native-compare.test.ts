/**
 * `npm run bench:native` end to end on the built-in database (its first 3001 frames, --rows): the native reference compiles, and
 * every native and WASM method returns the JS brute force's index and cost on every query, exact
 * queries (σ 0: ties between identical rows go to the lowest index) and noisy ones. Timing is not
 * asserted. Skipped, with the reason, without a C compiler or off x86-64.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, tempDir } from '../helpers/cli.js';

const script = join(REPO_ROOT, 'dist', 'bench', 'native-compare.js');
const compiler = ['gcc', 'cc'].find((cc) => spawnSync(cc, ['--version']).status === 0);
const skip = process.arch !== 'x64' ? `not x86-64 (${process.arch})` : !compiler ? 'no C compiler (gcc or cc)' : !existsSync(script) ? `${script} not built` : null;
if (skip) console.log(`native comparison skipped: ${skip}`);

describe.skipIf(skip !== null)('native comparison (bench/native, bench/native-compare.ts)', () => {
  it('agrees with the JS brute force on every query, for every native and WASM method', () => {
    const json = join(tempDir('mm-native-test-'), 'native.json');
    const r = spawnSync(process.execPath, [script, '--mocap', join(REPO_ROOT, 'no-such-mocap'), '--queries', '300', '--rounds', '1', '--sigmas', '0,0.5', '--rows', '3001', '--json', json], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 110_000 });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      rows: Array<{ impl: string; sigma: number; mismatches: number; checked: number; medianUs: number }>;
      compiler: { flags: string[] };
      database: { rows: number; featureBytes: number; stride: number };
      regime: Array<{ sigma: number; avx2Gain: number | null; bandwidthBound: boolean | null }>;
    };
    // --rows: the first 3001 frames only (an odd count: the four-row loops' tails run too).
    expect(report.database.rows).toBe(3001);
    expect(report.database.featureBytes).toBe(3001 * report.database.stride * 4);
    expect(report.regime.map((g) => g.sigma)).toEqual([0, 0.5]);
    const hasAvx2 = report.rows.some((row) => row.impl === 'native avx2');
    for (const g of report.regime) expect(typeof g.bandwidthBound).toBe(hasAvx2 ? 'boolean' : 'object');
    expect(r.stdout).toMatch(/first 3001 of \d+ frames/);
    const impls = new Set(report.rows.map((row) => row.impl));
    for (const impl of ['native sse-1row', 'native sse', 'native sse-generic', 'native boxes-sse', 'wasm brute', 'wasm aabb', 'wasm kdtree']) expect(impls, impl).toContain(impl);
    for (const row of report.rows) {
      expect(row.checked, `${row.impl} σ ${row.sigma}`).toBe(300);
      expect(row.mismatches, `${row.impl} σ ${row.sigma}`).toBe(0);
      expect(row.medianUs).toBeGreaterThan(0);
    }
    expect(report.compiler.flags).toEqual(expect.arrayContaining(['-O3', '-march=native', '-ffp-contract=off']));
    expect(r.stdout).toMatch(/\| σ \| implementation \| median µs/);
  });
});
