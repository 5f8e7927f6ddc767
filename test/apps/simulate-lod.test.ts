/**
 * `motionmatch simulate --lod [--search-budget N] [--lod-levels FILE]` (docs/lod.md): the report's
 * level figures, determinism over worker counts with a budget, a level table from a file, and usage errors. Level 0 is bit-identical to a
 * run without levels: test/runtime/lod.test.ts.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runCliInProcess, tempDir } from '../helpers/cli.js';
import { DEFAULT_LOD_LEVELS } from '../../src/runtime/lod/levels.js';

type Level = { level: number; fromM: number; toM: number | null; poseEvery: number; footIK: boolean; agentSteps: number; share: number; footSkateCmPerSec: number; trajectoryErrorCm: number; transitionsPerSec: number; searchesPerAgentSec: number };
type Lod = { levels: Level[]; hysteresisM: number; budget: number; deferred: number; fullSearches: number; localSearches: number; maxSearchAgeSeconds: number };
type Report = { hash: string; searches: number; steps: number; agents: number; workers: number; lod?: Lod };

describe('motionmatch simulate --lod', () => {
  // 1,500 agents on a 64-wide grid are 70 m long: the seeded camera sees near, middle and far agents.
  const base = ['simulate', '--agents', '1500', '--seconds', '1', '--seed', '3', '--lod', '--json'];
  let one: Report, two: Report, budget1: Report, budget2: Report;
  beforeAll(async () => {
    const runs: Array<Awaited<ReturnType<typeof runCliInProcess>>> = [];
    for (const a of [base, [...base, '--workers', '2'], [...base, '--search-budget', '60'], [...base, '--search-budget', '60', '--workers', '2']]) runs.push(await runCliInProcess(a));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    [one, two, budget1, budget2] = runs.map((r) => JSON.parse(r.stdout) as Report);
  }, 120_000);

  it('reports every level: agent-steps adding up to the run, quality, searches', () => {
    const lod = one.lod!;
    expect(lod.levels).toHaveLength(4);
    expect(lod.levels.reduce((n, l) => n + l.agentSteps, 0)).toBe(one.agents * one.steps);
    for (const l of lod.levels) {
      expect(l.agentSteps, `level ${l.level}`).toBeGreaterThan(0);
      for (const k of ['footSkateCmPerSec', 'trajectoryErrorCm', 'transitionsPerSec', 'searchesPerAgentSec'] as const) expect(Number.isFinite(l[k]), k).toBe(true);
    }
    // Coarser levels search less often.
    expect(lod.levels[3].searchesPerAgentSec).toBeLessThan(lod.levels[0].searchesPerAgentSec);
    expect(lod.fullSearches + lod.localSearches).toBe(one.searches);
    expect(lod.localSearches).toBeGreaterThan(0);
    expect(lod.deferred).toBe(0);
  });

  it('gives the same hash with one and two workers, with and without a budget', () => {
    expect(two.hash).toBe(one.hash);
    expect(budget2.hash).toBe(budget1.hash);
    expect(budget1.hash).not.toBe(one.hash);
    expect(two.lod!.levels.map((l) => l.agentSteps)).toEqual(one.lod!.levels.map((l) => l.agentSteps));
  });

  it('keeps to the budget: at most N searches a step, the rest deferred', () => {
    const lod = budget1.lod!;
    expect(lod.budget).toBe(60);
    expect(budget1.searches).toBeLessThanOrEqual(60 * budget1.steps);
    expect(lod.deferred).toBeGreaterThan(0);
    expect(budget2.lod!.deferred).toBe(lod.deferred);
  });

  it('takes its levels from --lod-levels: the table and hysteresis of the file, in the report', async () => {
    const dir = tempDir('mm-lod-levels-');
    const file = join(dir, 'levels.json');
    // Two levels: full detail to 25 m, then foot IK off and the pose every 3rd step.
    const near = { ...DEFAULT_LOD_LEVELS[0], maxDistance: 25 };
    const far = { ...DEFAULT_LOD_LEVELS[2], maxDistance: null, poseEvery: 3 };
    writeFileSync(file, JSON.stringify({ levels: [near, far], hysteresis: 1, comment: 'two levels' }));
    const r = await runCliInProcess([...base, '--lod-levels', file]);
    expect(r.code, r.stderr).toBe(0);
    const lod = (JSON.parse(r.stdout) as Report).lod!;
    expect(lod.levels.map((l) => [l.fromM, l.toM, l.footIK, l.poseEvery])).toEqual([[0, 25, true, 1], [25, null, false, 3]]);
    expect(lod.hysteresisM).toBe(1);
    expect(lod.levels[0].agentSteps + lod.levels[1].agentSteps).toBe(one.agents * one.steps);
    expect(lod.levels[0].agentSteps).toBeGreaterThan(one.lod!.levels[0].agentSteps); // 25 m against 15 m
    // A table the file cannot hold: one line naming the file, the level and the field (exit 1).
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ levels: [{ ...near, poseEvery: 0 }, far] }));
    const b = runCli([...base, '--lod-levels', bad]);
    expect(b.code).toBe(1);
    expect(b.stderr.trim()).toMatch(/^motionmatch simulate: .*bad\.json: LOD level 0: poseEvery must be an integer in \[1, 60\], got 0$/);
    const missing = await runCliInProcess([...base, '--lod-levels', join(dir, 'none.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/none\.json/);
  });

  it('prints n/a, not NaN, for a level no agent reached (a small crowd near the camera)', async () => {
    const r = await runCliInProcess(['simulate', '--agents', '10', '--seconds', '1', '--lod', '--no-warmup']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/NaN/);
    expect(r.stdout).toMatch(/level 3 .*: 0\.0% of agent-steps, .*skate n\/a cm\/s/);
  });

  it('refuses bad --lod and --search-budget values with a usage error (exit 2)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--search-budget', '10'], /--search-budget goes with --lod/],
      [['--lod-levels', 'x.json'], /--lod-levels goes with --lod/],
      [['--lod', '--lod-levels', ''], /--lod-levels needs a file name/],
      [['--lod', '--search-budget', '0'], /search-budget/],
      [['--lod', '--search-budget', '2.5'], /search-budget/],
      [['--lod', '--search-budget', 'many'], /search-budget/],
      [['--lod=3'], /lod/],
      [['--lod', '--search-budget', '5', '--shard', '0/2', '--json'], /2 shards for 10 agents in 1 block of 128 .*use at most 1 shard$/m],
    ];
    for (const [extra, message] of cases) {
      const r = await runCliInProcess(['simulate', '--agents', '10', '--seconds', '0.1', ...extra]);
      expect(r.code, extra.join(' ')).toBe(2);
      expect(r.stderr, extra.join(' ')).toMatch(message);
    }
  });
});
