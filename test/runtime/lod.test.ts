/**
 * Levels of detail (src/runtime/lod/levels.ts, crowd/crowd-lod.ts, lod/local-search.ts) and the search budget
 * (lod/search-budget.ts): level selection with hysteresis, level 0 bit-identical to a crowd without
 * levels, the local search's window, the budget's shares and urgency order, and no starvation.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { Matcher } from '../../src/search/matcher.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { CrowdSearchBatch } from '../../src/runtime/crowd/batch.js';
import { CrowdLod } from '../../src/runtime/crowd/crowd-lod.js';
import { LocalSearchWindow } from '../../src/runtime/lod/local-search.js';
import { DEFAULT_LOD_LEVELS, initialLodLevel, lodDistance, selectLodLevel, validateLodLevels, type LodLevel } from '../../src/runtime/lod/levels.js';
import { BUDGET_BLOCK, FORCED_BONUS, budgetShare, rankByUrgency } from '../../src/runtime/lod/search-budget.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import type { Database } from '../../src/database/database.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
let matcher: Matcher;
beforeAll(async () => {
  db = builtinDatabase();
  matcher = await Matcher.create(db);
});

const L = DEFAULT_LOD_LEVELS;

describe('level selection', () => {
  it('uses the table without history and moves one way only beyond the hysteresis band', () => {
    expect(initialLodLevel(L, 0)).toBe(0);
    expect(initialLodLevel(L, 14.9)).toBe(0);
    expect(initialLodLevel(L, 15)).toBe(1);
    expect(initialLodLevel(L, 1e9)).toBe(L.length - 1);
    // At 16 m (inside the 15 ± 2 m band) level 0 stays 0 and level 1 stays 1.
    expect(selectLodLevel(L, 0, 16, 2)).toBe(0);
    expect(selectLodLevel(L, 1, 14, 2)).toBe(1);
    expect(selectLodLevel(L, 0, 17.01, 2)).toBe(1);
    expect(selectLodLevel(L, 1, 12.99, 2)).toBe(0);
    // A jump across several levels at once.
    expect(selectLodLevel(L, 0, 500, 2)).toBe(3);
    expect(selectLodLevel(L, 3, 1, 2)).toBe(0);
  });

  it('does not flicker for a character pacing across a boundary', () => {
    let level = initialLodLevel(L, 14), changes = 0;
    for (let s = 0; s < 1000; s++) {
      const d = 15 + 1.9 * Math.sin(s * 0.37); // within ±1.9 m of the 15 m boundary
      const next = selectLodLevel(L, level, d, 2);
      if (next !== level) changes++;
      level = next;
    }
    expect(changes).toBe(0);
    // Without hysteresis the same path changes level hundreds of times.
    level = 0; changes = 0;
    for (let s = 0; s < 1000; s++) {
      const next = selectLodLevel(L, level, 15 + 1.9 * Math.sin(s * 0.37), 0);
      if (next !== level) changes++;
      level = next;
    }
    expect(changes).toBeGreaterThan(100);
  });

  it('divides the distance by the importance', () => {
    expect(lodDistance(30, 2)).toBe(15);
    expect(lodDistance(30, 0)).toBe(Infinity);
  });

  it('refuses tables it cannot use, in one line', () => {
    const bad = (levels: LodLevel[], h = 2) => () => validateLodLevels(levels, h);
    expect(bad([{ ...L[0], maxDistance: 10 }])).toThrow(/last level must reach Infinity/);
    expect(bad([L[1], L[0], L[3]])).toThrow(/above the previous level/);
    expect(bad([{ ...L[0], maxDistance: 3 }, L[3]])).toThrow(/no room for the hysteresis/);
    expect(bad([{ ...L[3], poseEvery: 0 }])).toThrow(/poseEvery/);
    expect(bad([L[3]], -1)).toThrow(/hysteresis/);
    expect(() => validateLodLevels(L, 2)).not.toThrow();
  });
});

/** Steps n characters for `steps` steps, either as today's crowd (lod null) or through CrowdLod at `distance`. */
function runCrowd(n: number, steps: number, lod: ((c: MotionMatchingController[]) => CrowdLod) | null, distance: (i: number, s: number) => number, share = Infinity): { states: Float64Array; lod: CrowdLod | null } {
  const size = MotionMatchingController.storageSize(db);
  const states = new Float64Array(size * n);
  const options = MotionMatchingController.resolveOptions({});
  const cs = Array.from({ length: n }, (_, i) => {
    const c = new MotionMatchingController(db, options, states.subarray(i * size, (i + 1) * size));
    c.reset(c.frame, 3 * i, 0, 0);
    return c;
  });
  const drivers = cs.map((_, i) => new ScriptedDriver('wander', 3, i, 1 / 30));
  const inputs = cs.map(() => createInput());
  const batch = new CrowdSearchBatch(db.stride, 'kdtree');
  const crowd = lod ? lod(cs) : null;
  for (let s = 0; s < steps; s++) {
    if (crowd) crowd.beginBlock(); else batch.begin();
    for (let i = 0; i < n; i++) {
      drivers[i].drive(cs[i].rootPosition, inputs[i]);
      if (crowd) crowd.choose(cs[i], i, distance(i, s));
      if (cs[i].prepare(1 / 30, inputs[i])) { if (crowd) crowd.due(cs[i], i); else batch.add(cs[i], i); }
    }
    if (crowd) { crowd.schedule(cs, share); crowd.search(matcher); } else batch.search(matcher);
    for (let i = 0; i < n; i++) { if (crowd) crowd.finish(cs[i], i); else batch.finish(cs[i], i); }
  }
  return { states, lod: crowd };
}

describe('CrowdLod', () => {
  it('level 0 is bit-identical to a crowd without levels', () => {
    const plain = runCrowd(8, 150, null, () => 0);
    const lod = runCrowd(8, 150, (cs) => new CrowdLod(db, cs[0].options, cs.length, 'kdtree'), () => 0);
    expect(lod.lod!.counts.levelSteps[0]).toBe(8 * 150);
    expect(lod.lod!.counts.localSearches).toBe(0);
    expect(Buffer.from(lod.states.buffer).equals(Buffer.from(plain.states.buffer))).toBe(true);
  });

  it('far levels search less, locally between full searches, and still move every agent', () => {
    const plain = runCrowd(8, 150, null, () => 0);
    const far = runCrowd(8, 150, (cs) => new CrowdLod(db, cs[0].options, cs.length, 'kdtree'), () => 1000);
    const c = far.lod!.counts;
    expect(c.levelSteps[L.length - 1]).toBe(8 * 150);
    expect(c.localSearches).toBeGreaterThan(0);
    expect(c.fullSearches).toBeGreaterThan(0);
    const searches = c.fullSearches + c.localSearches;
    // 8 agents x 5 s at one regular search per 0.4 s is 100, plus forced ones; full detail makes ~400.
    expect(searches).toBeLessThan(250);
    expect(Buffer.from(far.states.buffer).equals(Buffer.from(plain.states.buffer))).toBe(false);
  });

  it('changes level once when an agent walks away through the boundaries', () => {
    const r = runCrowd(2, 90, (cs) => new CrowdLod(db, cs[0].options, cs.length, 'kdtree'), (_, s) => s * 2);
    // 0 -> 1 -> 2 -> 3 on the way out, each once, per agent.
    expect(r.lod!.counts.levelChanges).toBe(2 * 3);
  });
});

describe('local search window', () => {
  it('excludes everything but ±N frames in the playing clip and its neighbouring clips', () => {
    const w = new LocalSearchWindow(db);
    const c = 1, clip = db.clips[c];
    const f = clip.start + Math.floor(clip.count / 2);
    const out = new Int32Array(10);
    const n = w.exclusions(f, 5, f - 2, f + 3, out);
    expect(n).toBeGreaterThan(0);
    const excluded = (x: number) => { for (let k = 0; k < n; k++) if (x >= out[2 * k] && x < out[2 * k + 1]) return true; return false; };
    expect(excluded(f)).toBe(true); // the request's own exclusion
    expect(excluded(f + 5)).toBe(false);
    expect(excluded(f - 5)).toBe(false);
    expect(excluded(f + 6)).toBe(true);
    expect(excluded(db.clips[c - 1].start)).toBe(false);
    expect(excluded(db.clips[c + 1].start + db.clips[c + 1].count - 1)).toBe(false);
    if (c + 2 < db.clips.length) expect(excluded(db.clips[c + 2].start)).toBe(true);
  });

  it('reports an empty window (-1) instead of a search that would throw', () => {
    const w = new LocalSearchWindow(db);
    const clip = db.clips[0];
    // Excluding the whole database leaves nothing.
    expect(w.exclusions(clip.start, 3, 0, db.frameCount, new Int32Array(10))).toBe(-1);
  });
});

describe('search budget', () => {
  it('shares exactly the budget over the blocks every step, and gives every block searches over time', () => {
    const agents = 1000, blocks = Math.ceil(agents / BUDGET_BLOCK);
    for (const budget of [1, 7, 50, 999]) {
      const got = new Array(blocks).fill(0);
      for (let step = 0; step < 200; step++) {
        let sum = 0;
        for (let b = 0; b < blocks; b++) {
          const share = budgetShare(budget, agents, b * BUDGET_BLOCK, Math.min(agents, (b + 1) * BUDGET_BLOCK), step);
          expect(share).toBeGreaterThanOrEqual(0);
          sum += share;
          got[b] += share;
        }
        expect(sum).toBe(budget);
      }
      // Over 200 steps each block's total is its size's share, within 2.
      for (let b = 0; b < blocks; b++) {
        const size = Math.min(agents, (b + 1) * BUDGET_BLOCK) - b * BUDGET_BLOCK;
        expect(Math.abs(got[b] - (200 * budget * size) / agents)).toBeLessThanOrEqual(2);
      }
    }
  });

  it('ranks by age (+ the forced bonus), then deviation, then index', () => {
    const forced = Uint8Array.from([0, 0, 1, 0, 0]);
    const age = Float64Array.from([0.2, 0.5, 0.2, 0.2, 0.2 + FORCED_BONUS + 0.1]);
    const dev = Float64Array.from([0.1, 0, 0, 0.3, 0]);
    const order = new Int32Array(5);
    rankByUrgency(5, forced, age, dev, order);
    // 4: oldest (0.8); 2: forced 0.2 + 0.5 = 0.7; 1: 0.5; then 3 (deviation 0.3) before 0 (0.1).
    expect(Array.from(order)).toEqual([4, 2, 1, 3, 0]);
    const tie = new Int32Array(3);
    rankByUrgency(3, new Uint8Array(3), new Float64Array(3), new Float64Array(3), tie);
    expect(Array.from(tie)).toEqual([0, 1, 2]);
  });

  it('starves nobody: with one search a step, every always-due agent is served within n steps', () => {
    const n = 40, age = new Float64Array(n), forced = new Uint8Array(n), dev = new Float64Array(n), order = new Int32Array(n);
    // Deviations favour low indices strongly: only the age can get the others served.
    for (let i = 0; i < n; i++) dev[i] = n - i;
    forced[0] = 1;
    const lastServed = new Array(n).fill(-1);
    let worstWait = 0;
    for (let step = 0; step < 400; step++) {
      rankByUrgency(n, forced, age, dev, order);
      const k = order[0];
      worstWait = Math.max(worstWait, step - lastServed[k]);
      lastServed[k] = step;
      for (let i = 0; i < n; i++) age[i] = i === k ? 0 : age[i] + 1 / 30;
    }
    // Forced agent 0 gets ahead by FORCED_BONUS (1 here: 30 steps of 1/30) at most.
    expect(Math.min(...lastServed)).toBeGreaterThan(400 - n - 31);
    expect(worstWait).toBeLessThanOrEqual(n + 30);
  });

  it('defers searches in a real crowd and still searches for every agent', () => {
    const r = runCrowd(16, 90, (cs) => new CrowdLod(db, cs[0].options, cs.length, 'kdtree'), () => 0, 1);
    const c = r.lod!.counts;
    expect(c.fullSearches + c.localSearches).toBe(90); // exactly the budget: more are always due
    expect(c.deferred).toBeGreaterThan(0);
    // 16 agents share one search a step: nobody waits much longer than 16 steps (plus the forced bonus).
    expect(c.maxSearchAgeSeconds).toBeLessThan((16 + 16) / 30);
  });
});
