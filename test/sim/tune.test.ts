/**
 * The tuning sweep (src/tools/tune/): the parameter space and its Latin hypercube, the Pareto
 * front and the recommendation rules, and a sweep that is deterministic for a seed, stops at its
 * evaluation count or budget, and measures what it says it measures.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase } from '../../src/database/build.js';
import type { Database } from '../../src/database/database.js';
import { createRandom } from '../../src/util/prng.js';
import { DEFAULT_CONTROLLER_OPTIONS } from '../../src/runtime/controller/options.js';
import { TUNE_PARAMETERS, baselineValues, defaultValues, latinHypercube, roundValue, settingsOf, unitOf, valueAt, valuesAt, type TuneValues } from '../../src/tools/tune/space.js';
import { beatsReference, dominates, front2d, noiseScaledGain, NOISE_FLOOR_FRACTION, OBJECTIVE_KEYS, paretoFront, qualityIndex, rankCandidates, recommend, seedSpread, TRAJECTORY_ERROR_ALLOWANCE, type TuneObjectives } from '../../src/tools/tune/front.js';
import { runTune, type TuneResult } from '../../src/tools/tune/tune.js';
import { runQualityScenarios } from '../../src/tools/quality/run.js';
import { applySchemaWeights } from '../../src/sim/settings/options-file.js';
import { tuneFrontSvg } from '../../src/tools/tune/svg.js';

const { skeleton, clips } = generateBuiltinClips();
let db: Database;
beforeAll(() => {
  db = buildDatabase(clips.filter((c) => /^(idle|walk_1\.2|run_3\.5|strafe_(left|right)_1\.0|walk_backward_1\.0|walk_turn_(left|right)_90)$/.test(c.name)).map((clip) => ({ skeleton, clip })));
});

/** Objectives: trajectory error, skate, transitions, pops and (default 1) depth below the ground. */
const obj = (t: number, s: number, r: number, p: number, d = 1): TuneObjectives => ({ trajectoryErrorCm: t, footSkateCmPerSec: s, transitionsPerSec: r, popP999: p, belowGroundP99Cm: d });

describe('the parameter space', () => {
  it('maps the unit interval onto each range (log where it says), rounded to three digits', () => {
    for (const p of TUNE_PARAMETERS) {
      expect(valueAt(p, 0)).toBe(roundValue(p.min));
      expect(valueAt(p, 1)).toBe(roundValue(p.max));
      expect(valueAt(p, -3)).toBe(roundValue(p.min));
      expect(unitOf(p, valueAt(p, 0.37))).toBeCloseTo(0.37, 2);
      expect(p.defaultValue).toBeGreaterThanOrEqual(p.min);
      expect(p.defaultValue).toBeLessThanOrEqual(p.max);
    }
    const mid = TUNE_PARAMETERS.find((p) => p.key === 'poseWeight')!;
    expect(valueAt(mid, 0.5)).toBe(1); // geometric middle of [0.5, 2]
    expect(roundValue(0.123456)).toBe(0.123);
  });

  it('Latin hypercube: each dimension has one point in each of its n strata (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 8 }), fc.integer(), (n, dims, seed) => {
      const pts = latinHypercube(n, dims, createRandom(seed));
      expect(pts.length).toBe(n);
      for (let d = 0; d < dims; d++) {
        const strata = pts.map((p) => Math.floor(p[d] * n)).sort((a, b) => a - b);
        expect(strata).toEqual(Array.from({ length: n }, (_, i) => i));
      }
      expect(latinHypercube(n, dims, createRandom(seed))).toEqual(pts);
    }));
  });

  it('turns a point into engine settings: the defaults are the engine defaults, multipliers scale the groups', () => {
    const d = settingsOf(db, defaultValues());
    for (const [k, v] of Object.entries(d.controller)) expect(v, k).toBe(DEFAULT_CONTROLLER_OPTIONS[k as keyof typeof DEFAULT_CONTROLLER_OPTIONS]);
    for (const g of db.schema.groups) expect(d.schemaWeights[g.name]).toBe(g.weight);
    expect(applySchemaWeights(db, d)).toBe(db);
    const v: TuneValues = { ...defaultValues(), poseWeight: 2, trajectoryWeight: 0.5, trajectoryHalfLife: 0.2 };
    const s = settingsOf(db, v);
    expect(s.schemaWeights.footPosition).toBe(1.5);
    expect(s.schemaWeights.trajectoryDirection).toBe(0.75);
    expect(s.controller.facingHalfLife).toBe(0.2);
  });
});

describe('the front', () => {
  it('is exactly the non-dominated points (property, against a brute-force check)', () => {
    const arb = fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 30 });
    fc.assert(fc.property(arb, (rows) => {
      const pts = rows.map(([a, b, c, d, e]) => obj(a, b, c, d, e));
      const front = paretoFront(pts);
      pts.forEach((p, i) => {
        const dominated = pts.some((q) => dominates(q, p));
        const earlierTwin = pts.slice(0, i).some((q) => OBJECTIVE_KEYS.every((k) => q[k] === p[k]));
        expect(front.includes(i)).toBe(!dominated && !earlierTwin);
      });
      expect(front.length).toBeGreaterThan(0);
    }));
  });

  it('2-D front: sorted by x, strictly better in y each step', () => {
    expect(front2d([3, 1, 2, 4, 1.5], [1, 5, 2, 0.5, 6])).toEqual([1, 2, 0, 3]);
  });

  it('quality index: 1 for the reference, the mean of the ratios otherwise', () => {
    const ref = obj(5, 2, 4, 6);
    expect(qualityIndex(ref, ref)).toBe(1);
    expect(qualityIndex(obj(9, 1, 2, 3, 0.5), ref)).toBeCloseTo(0.5, 12);
    // A measure at 0 in the reference: 1 while it stays 0, 2 (twice as bad) when it appears.
    expect(qualityIndex(obj(5, 2, 4, 6, 0), obj(5, 2, 4, 6, 0))).toBe(1);
    expect(qualityIndex(obj(5, 2, 4, 6, 0.3), obj(5, 2, 4, 6, 0))).toBeCloseTo(1.25, 12);
  });

  it('seed spread: the range of each measure over seeds, never below its floor', () => {
    const sp = seedSpread([obj(10, 2, 4, 6), obj(10.5, 1, 4, 7), obj(9.8, 2.5, 4, 6.5)]);
    expect(sp.trajectoryErrorCm).toBeCloseTo(0.7, 12);
    expect(sp.footSkateCmPerSec).toBeCloseTo(1.5, 12);
    expect(sp.transitionsPerSec).toBeCloseTo(4 * NOISE_FLOOR_FRACTION, 12); // identical on every seed: the floor
    expect(sp.popP999).toBeCloseTo(1, 12);
    expect(() => seedSpread([])).toThrow(/no samples/);
  });

  it('recommends the largest noise-scaled gain within the trajectory allowance, no measure worse beyond its spread; else nothing', () => {
    const defaults = obj(10, 2, 4, 6);
    const spread = obj(0.2, 0.5, 0.2, 1);
    const points = [
      defaults,
      obj(9, 1, 2, 6), // better skate and transitions
      obj(10 * TRAJECTORY_ERROR_ALLOWANCE + 0.01, 0.1, 0.1, 0.1), // best quality, not responsive enough
      obj(9.5, 1.5, 3, 5),
      obj(5, 3, 5, 7), // responsive, worse quality
      obj(9, 2.4, 1, 6.5), // transitions far better, skate and jump worse within their spread
    ];
    expect(noiseScaledGain(points[1], defaults, spread)).toBeCloseTo((2 + 10 + 0 + 0) / 4, 12);
    expect(noiseScaledGain(points[5], defaults, spread)).toBeCloseTo((-0.8 + 15 - 0.5 + 0) / 4, 12);
    expect(rankCandidates(points, defaults, spread)).toEqual([5, 1, 3]);
    expect(recommend(points, defaults, spread)).toBe(5);
    expect(recommend(points, defaults, spread, new Set([5]))).toBe(1);
    // A measure worse by more than its spread disqualifies, whatever the gain elsewhere.
    expect(beatsReference(obj(9, 2.6, 0.1, 6), defaults, spread)).toBe(false);
    expect(beatsReference(obj(9, 2.4, 0.1, 6), defaults, spread)).toBe(true);
    // Nothing better: no recommendation.
    expect(recommend([defaults, obj(11, 0.1, 0.1, 0.1), obj(5, 2, 4, 6)], defaults, spread)).toBeNull();
    // The ratio index would have refused #5 (a 20% skate rise on a small skate): the spread says it is noise.
    expect(qualityIndex(obj(9, 0.24, 3.9, 6), obj(10, 0.2, 4, 6))).toBeGreaterThan(1);
    expect(beatsReference(obj(9, 0.24, 3.9, 6), obj(10, 0.2, 4, 6), obj(0.2, 0.17, 0.07, 0.5))).toBe(true);
  });

  it('a settings file is a starting point: its swept values, refused outside the ranges', () => {
    expect(baselineValues({})).toEqual(defaultValues());
    expect(baselineValues({ minDwell: 0.05, searchInterval: 0.2, footIK: false })).toEqual({ ...defaultValues(), minDwell: 0.05, searchInterval: 0.2 });
    expect(() => baselineValues({ minRelativeGain: 0 })).toThrow(/minRelativeGain 0 is outside what tune sweeps \(0\.02 to 0\.4\)/);
    expect(() => baselineValues({ trajectoryHalfLife: 0.2, facingHalfLife: 0.3 })).toThrow(/tune sweeps them as one half-life/);
    // Options the sweep leaves alone pass through to every point's settings.
    const s = settingsOf(db, { ...defaultValues(), continuingBias: 0.5 }, undefined, { footIK: false, continuingBias: 3 });
    expect(s.controller.footIK).toBe(false);
    expect(s.controller.continuingBias).toBe(0.5);
  });
});

describe('runTune', () => {
  let a: TuneResult;
  const options = { seed: 7, budgetSeconds: 600, maxEvaluations: 6, designPoints: 3, agents: 4, seconds: 3, hz: 30, scenarios: ['wander', 'strafe'] as const };
  beforeAll(async () => {
    a = await runTune(db, { ...options, scenarios: [...options.scenarios] });
  });

  it('evaluates the defaults, the design, then refinements, and stops at the count', () => {
    expect(a.evaluations.length).toBe(6);
    expect(a.stoppedBy).toBe('evaluations');
    expect(a.evaluations.map((e) => e.phase)).toEqual(['defaults', 'design', 'design', 'design', 'refine', 'refine']);
    expect(a.evaluations[0].values).toEqual(defaultValues());
    expect(a.evaluations[0].qualityIndex).toBe(1);
    expect(new Set(a.evaluations.map((e) => JSON.stringify(e.values))).size).toBe(6);
    expect(a.front.length).toBeGreaterThan(0);
    expect(a.front).toEqual(paretoFront(a.evaluations.map((e) => e.objectives)));
    if (a.recommended !== null) expect(a.evaluations[a.recommended].objectives.trajectoryErrorCm).toBeLessThanOrEqual(TRAJECTORY_ERROR_ALLOWANCE * a.evaluations[0].objectives.trajectoryErrorCm);
  });

  it('measures the defaults on three seeds for the noise, and recommends only what holds on the second seed', async () => {
    expect(a.noise.seeds).toEqual([7, 8, 9]);
    expect(a.noise.objectives[0]).toEqual(a.evaluations[0].objectives);
    expect(a.noise.spread).toEqual(seedSpread(a.noise.objectives));
    // The candidates tried are the ranked ones, in order, each re-measured on seed 8.
    const ranked = rankCandidates(a.evaluations.map((e) => e.objectives), a.evaluations[0].objectives, a.noise.spread);
    expect(a.confirmations.map((c) => c.index)).toEqual(ranked.slice(0, a.confirmations.length));
    for (const c of a.confirmations) {
      expect(c.seed).toBe(8);
      expect(c.held).toBe(beatsReference(c.objectives, a.noise.objectives[1], a.noise.spread, 1));
    }
    const held = a.confirmations.find((c) => c.held);
    expect(a.recommended).toBe(held ? held.index : null);
    if (ranked.length > 0) expect(a.confirmations.length).toBeGreaterThan(0);
  });

  it('starts from a baseline when given one: measured first, the reference of every comparison', async () => {
    const start = { ...defaultValues(), minDwell: 0.05, minRelativeGain: 0.02 };
    const b = await runTune(db, { ...options, maxEvaluations: 3, baseline: { values: start, controller: { footIK: false } }, scenarios: [...options.scenarios] });
    expect(b.evaluations[0].values).toEqual(start);
    expect(b.evaluations[0].settings.controller.footIK).toBe(false);
    expect(b.evaluations[2].settings.controller.footIK).toBe(false);
    expect(b.evaluations[1].qualityIndex).toBe(qualityIndex(b.evaluations[1].objectives, b.evaluations[0].objectives));
  });

  it('is deterministic for a seed, and another seed tries other points', async () => {
    const b = await runTune(db, { ...options, scenarios: [...options.scenarios] });
    const strip = (r: TuneResult) => r.evaluations.map(({ seconds: _s, ...e }) => e);
    expect(strip(b)).toEqual(strip(a));
    expect(b.recommended).toBe(a.recommended);
    expect(b.noise).toEqual(a.noise);
    expect(b.confirmations).toEqual(a.confirmations);
    const c = await runTune(db, { ...options, seed: 8, maxEvaluations: 2, scenarios: [...options.scenarios] });
    expect(c.evaluations[1].values).not.toEqual(a.evaluations[1].values);
  });

  it('measures each point as the quality run does with its settings', async () => {
    const e = a.evaluations[2];
    const rows = await runQualityScenarios(applySchemaWeights(db, e.settings), { agents: 4, seconds: 3, hz: 30, seed: 7, scenarios: ['wander', 'strafe'], controller: e.settings.controller });
    expect(rows.map((r) => r.hash)).toEqual(e.scenarios.map((s) => s.hash));
    // With no settings, the settings runner is the quality runner (same hashes).
    const plain = await runQualityScenarios(db, { agents: 4, seconds: 3, hz: 30, seed: 7, scenarios: ['wander', 'strafe'] });
    expect(a.evaluations[0].scenarios.map((s) => s.hash)).toEqual(plain.map((r) => r.hash));
  });

  it('stops at the budget with what it has (a fake clock)', async () => {
    let t = 0;
    const r = await runTune(db, { ...options, maxEvaluations: undefined, budgetSeconds: 35, scenarios: ['wander'], now: () => (t += 5) });
    // Every evaluation reads the clock twice (10 s) and the check before one needs the last one's 10 s to fit.
    expect(r.stoppedBy).toBe('budget');
    expect(r.evaluations.length).toBeGreaterThanOrEqual(1);
    expect(r.evaluations.length).toBeLessThan(4);
  });

  it('refuses a bad budget, count or design', async () => {
    await expect(runTune(db, { ...options, budgetSeconds: 0, scenarios: ['wander'] })).rejects.toThrow(/budget must be > 0/);
    await expect(runTune(db, { ...options, maxEvaluations: 0, scenarios: ['wander'] })).rejects.toThrow(/evaluations must be an integer >= 1/);
    await expect(runTune(db, { ...options, designPoints: 0, scenarios: ['wander'] })).rejects.toThrow(/design points/);
  });

  it('draws the front as a well-formed SVG with every point, the defaults and the recommendation', () => {
    const svg = tuneFrontSvg(a, { title: 'a <test> & more' });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('a &lt;test&gt; &amp; more');
    // One dot per evaluation in each panel: the quality index and the four measures.
    expect((svg.match(/<circle [^>]*><title>#/g) ?? []).length).toBe(5 * a.evaluations.length);
    expect(svg).toContain('<title>defaults</title>');
    expect(svg.includes('recommended (#')).toBe(a.recommended !== null);
  });
});
