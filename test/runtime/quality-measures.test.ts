/**
 * The output quality measures (src/runtime/quality/output-measures.ts, meter.ts) on synthetic
 * motion with a known answer: a planted foot sliding at 10 cm/s, a foot 5 cm under the floor, a
 * 5 m/s jump of one joint, a character that keeps moving after a stop, a body facing 20° off the
 * request. Each measure reads the defect when it is there and nothing when it is not, so none of
 * them can pass by construction.
 */
import { describe, expect, it } from 'vitest';
import { QualityStats } from '../../src/runtime/quality/metrics.js';
import { recordFacing, recordFeet, recordHips, recordPlantedLift, recordPops, recordStanding, skateWeight, SKATE_HEIGHT } from '../../src/runtime/quality/output-measures.js';
import { bodyFacing, type QualityRig } from '../../src/runtime/quality/quality-rig.js';
import { QualityMeter } from '../../src/runtime/quality/meter.js';
import { createInput } from '../../src/runtime/controller/controller.js';
import type { MotionMatchingController } from '../../src/runtime/controller/controller.js';
import { playbackQuality } from '../../src/runtime/quality/playback-quality.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

// A rig of 7 joints: 0 hips, 1/2 left/right thigh, 3/4 left/right toe, 5/6 left/right ankle.
const J = 7;
const RIG: QualityRig = {
  feet: Int32Array.from([3, 4, 5, 6]),
  // Toes stand 2 cm above the floor when planted, ankles 8 cm.
  restHeights: Float64Array.from([0.02, 0.02, 0.08, 0.08]),
  hips: 0,
  facingPairs: Int32Array.from([1, 2]),
};

/** World positions of the rig standing at (x, 0, z) facing +Z, feet `lift` m above their planted heights. */
function pose(x: number, z: number, lift = 0): Float64Array {
  const p = new Float64Array(3 * J);
  const set = (j: number, px: number, py: number, pz: number) => { p[3 * j] = px; p[3 * j + 1] = py; p[3 * j + 2] = pz; };
  set(0, x, 0.9, z);
  set(1, x + 0.1, 0.85, z); set(2, x - 0.1, 0.85, z); // facing +Z: the left side is +X
  set(3, x + 0.1, 0.02 + lift, z + 0.15); set(4, x - 0.1, 0.02 + lift, z + 0.15);
  set(5, x + 0.1, 0.08 + lift, z); set(6, x - 0.1, 0.08 + lift, z);
  return p;
}

/** Two numbers in an array, as the measures take them. */
const pair = (a: number, b: number): Float64Array => new Float64Array([a, b]);

/** Feeds `steps` steps of poses from `at(step)` at `hz` into recordFeet and recordPops; returns the stats. */
function run(at: (s: number) => Float64Array, steps: number, hz = 60): QualityStats {
  const stats = new QualityStats(), dt = 1 / hz, n = 3 * J;
  const H = new Float64Array(3 * n), heights = new Float64Array(4), ground = new Float64Array(4), DT = new Float64Array([dt]);
  for (let s = 0; s < steps; s++) {
    const wp = at(s), now = (s % 3) * n, p1 = ((s + 2) % 3) * n, p2 = ((s + 1) % 3) * n;
    if (s >= 2) recordPops(stats, wp, H, p1, p2, n, DT, 0, 0);
    recordFeet(stats, RIG, wp, H, s >= 1 ? p1 : -1, ground, heights, 0, DT, 0);
    recordHips(stats, pair(wp[1], 0.9), 0);
    for (let i = 0; i < n; i++) H[now + i] = wp[i];
    stats.steps++;
  }
  return stats;
}

describe('foot skate (Zhang et al. 2018)', () => {
  it('weights speed by height: 1 on the ground, 0 from H up, 2 − 2^(h/H) between', () => {
    expect(skateWeight(0)).toBe(1);
    expect(skateWeight(-0.05)).toBe(1);
    expect(skateWeight(SKATE_HEIGHT)).toBe(0);
    expect(skateWeight(0.5 * SKATE_HEIGHT)).toBeCloseTo(2 - Math.SQRT2, 12);
  });

  it('reads a planted foot sliding at 10 cm/s as 10 cm/s, and a still one as 0', () => {
    const sliding = run((s) => pose(0.1 * s / 60, 0), 120).report();
    expect(sliding.skateCmPerSec).toBeCloseTo(10, 6);
    expect(sliding.skateAllCmPerSec).toBeCloseTo(10, 6);
    const still = run(() => pose(0, 0), 120).report();
    expect(still.skateCmPerSec).toBe(0);
  });

  it('leaves out feet above the ground band and counts half at half the band', () => {
    const high = run((s) => pose(0.1 * s / 60, 0, 0.05), 120).report();
    expect(Number.isNaN(high.skateCmPerSec)).toBe(true); // no step near the ground
    expect(high.skateAllCmPerSec).toBe(0);
    const half = run((s) => pose(0.1 * s / 60, 0, 0.5 * SKATE_HEIGHT), 120).report();
    expect(half.skateCmPerSec).toBeCloseTo(10 * (2 - Math.SQRT2), 6);
  });
});

describe('feet against the floor', () => {
  it('reads a foot 5 cm under the floor as 5 cm deep, and feet on it as 0', () => {
    const under = run(() => { const p = pose(0, 0); p[3 * 3 + 1] = -0.05; return p; }, 100).report();
    expect(under.belowGroundMaxCm).toBeCloseTo(5, 6);
    expect(under.belowGroundShare).toBeCloseTo(0.25, 12); // one foot joint of four
    expect(under.belowGroundP99Cm).toBeCloseTo(5, 1);
    const on = run(() => pose(0, 0), 100).report();
    expect(on.belowGroundMaxCm).toBe(0);
    expect(on.belowGroundShare).toBe(0);
    expect(on.belowGroundP99Cm).toBe(0);
  });

  it('reads the hips against the captured height', () => {
    const low = run((s) => { const p = pose(0, 0); p[1] = 0.85; return p; }, 50).report();
    expect(low.hipsOffsetCm).toBeCloseTo(-5, 1);
    expect(low.hipsHeightCm).toBeCloseTo(85, 0);
    expect(run(() => pose(0, 0), 50).report().hipsOffsetCm).toBeCloseTo(0, 1);
  });

  it('reads a foot the capture has down shown 5 cm up as lifted 5 cm, one shown as captured as 0, and leaves out feet the capture lifts', () => {
    const stats = new QualityStats();
    // 100 steps of a planted foot (captured 0.5 cm over its planted height): 90 shown as captured, 10 shown 5 cm higher.
    for (let i = 0; i < 100; i++) recordPlantedLift(stats, pair(0.005, i < 10 ? 0.055 : 0.005), 0);
    // A foot the capture has in its swing (10 cm up) counts for nothing, however it is shown.
    recordPlantedLift(stats, pair(0.1, 0.3), 0);
    const r = stats.report();
    expect(r.plantedSteps).toBe(100);
    expect(r.plantedLiftCm).toBeCloseTo(0.5, 9); // 10 steps of 5 cm over 100
    expect(r.plantedLiftP95Cm).toBeCloseTo(5, 1);
    expect(r.plantedLiftP99Cm).toBeCloseTo(5, 1);
    const flush = new QualityStats();
    for (let i = 0; i < 100; i++) recordPlantedLift(flush, pair(0.005, 0.005 - 0.01), 0); // shown lower: not lifted (depth has it)
    expect(flush.report().plantedLiftCm).toBe(0);
    expect(flush.report().plantedLiftP99Cm).toBe(0);
  });

  it('measures how high the lowest foot hovers while the root stands still', () => {
    const stats = new QualityStats();
    // Still for 1 s and for 0.6 s: standing; still for 0.1 s (a turn's pause): not.
    recordStanding(stats, pair(1, 0.015), 0); recordStanding(stats, pair(0.6, 0.005), 0); recordStanding(stats, pair(0.1, 0.3), 0);
    const r = stats.report();
    expect(r.standingShare).toBeCloseTo(2 / 3, 12);
    expect(r.standingHoverCm).toBeCloseTo(1, 9);
  });
});

describe('pops: the change of a joint\'s velocity between steps', () => {
  it('reads a 5 m/s jump of one joint as 5 m/s at that joint, and steady motion as 0', () => {
    const hz = 60;
    const jump = run((s) => { const p = pose(1.2 * s / hz, 0); if (s >= 30) p[3 * 5 + 2] += 5 * (s - 29) / hz; return p; }, 60, hz).report();
    expect(jump.popMax).toBeCloseTo(5, 6);
    expect(jump.popJoint).toBe(5);
    const steady = run((s) => pose(1.2 * s / hz, 0), 60, hz).report();
    expect(steady.popMax).toBeLessThan(1e-9);
  });
});

describe('facing', () => {
  it('gives the body\'s facing from its left-right lines and reads a 20° miss as 20°', () => {
    const p = pose(0, 0);
    expect(bodyFacing(RIG, p)).toBeCloseTo(0, 12);
    // Turned by +90° (facing +X): the left side is now −Z.
    const q = new Float64Array(p);
    q[3 * 1] = 0; q[3 * 1 + 2] = -0.1; q[3 * 2] = 0; q[3 * 2 + 2] = 0.1;
    expect(bodyFacing(RIG, q)).toBeCloseTo(Math.PI / 2, 12);
    const stats = new QualityStats();
    for (let i = 0; i < 10; i++) recordFacing(stats, (20 * Math.PI) / 180);
    expect(stats.report().facingErrorDeg).toBeCloseTo(20, 9);
  });
});

/** A stand-in for the controller with the fields the meter reads, moving its root at `speed(t)` along +Z. */
function fakeController(speed: (t: number) => number) {
  const db = builtinDatabase();
  const c = {
    db, joints: db.skeleton.names.length, worldPositions: new Float64Array(3 * db.skeleton.names.length),
    rootPosition: new Float64Array(3), simPosition: new Float64Array(3), simVelocity: new Float64Array(3), simAcceleration: new Float64Array(3),
    options: { ground: null, footIK: false, trajectoryHalfLife: 0.27, groundOptions: {} }, footIK: { animatedContactHeight: () => 0 },
    searchCount: 0, transitionCount: 0, contacts: 0, poseSeconds: 1 / 60, transitioned: false, frame: db.clips[0].start, frameFraction: 0, clipIndex: 0,
    t: 0,
    step(dt: number) {
      c.t += dt;
      const dz = speed(c.t) * dt;
      c.rootPosition[2] += dz;
      for (let j = 0; j < c.joints; j++) c.worldPositions[3 * j + 2] += dz;
    },
  };
  return c;
}

describe('stops', () => {
  const stopsAfter = (rootSpeedAfterStop: number) => {
    const c = fakeController((t) => (t < 1 ? 1.2 : rootSpeedAfterStop));
    const meter = new QualityMeter(c as unknown as MotionMatchingController, new QualityStats(), 1 / 60, 6);
    const input = createInput();
    for (let s = 0; s < 180; s++) {
      input.velocityZ = s < 60 ? 1.2 : 0;
      c.step(1 / 60);
      meter.observe(input, 1 / 60);
    }
    return meter.report();
  };

  it('reads a character still moving at 30 cm/s a second after the stop request as 30 cm/s', () => {
    const r = stopsAfter(0.3);
    expect(r.stops).toBe(1);
    expect(r.stopRoot1CmPerSec).toBeCloseTo(30, 6);
    expect(r.stopRoot05CmPerSec).toBeCloseTo(30, 6);
  });

  it('reads one that stopped as 0', () => {
    const r = stopsAfter(0);
    expect(r.stops).toBe(1);
    expect(r.stopRoot1CmPerSec).toBe(0);
  });
});

describe("the data's own level", () => {
  it('plays the built-in database plainly: feet on the ground, little skate, no stop figures, no planted foot lifted', () => {
    const db = builtinDatabase();
    const r = playbackQuality(db, 60);
    expect(r.skateCmPerSec).toBeGreaterThan(0);
    expect(r.skateCmPerSec).toBeLessThan(2);
    expect(r.belowGroundMaxCm).toBeLessThan(0.5);
    expect(r.hipsOffsetCm).toBeCloseTo(0, 2); // (to the histogram's 0.01 cm bins)
    expect(r.popMax).toBeGreaterThan(0);
    expect(r.stops).toBe(0);
    expect(Number.isNaN(r.stopRoot1CmPerSec)).toBe(true);
    expect(r.standingShare).toBeGreaterThan(0); // the idle clip stands
    expect(r.plantedSteps).toBeGreaterThan(1000); // feet the capture has down, against themselves
    expect(r.plantedLiftP99Cm).toBe(0);
  });
});
