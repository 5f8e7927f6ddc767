/**
 * Level changes blend (src/runtime/controller/level-blend.ts, controller.setLevel, InertializationDecay.rebase):
 * foot IK switched off fades out over the blend half-life instead of cutting to the animation, and
 * back on fades in; inertialization switched off lets the last transition's offsets drain exactly
 * as they would have, then cuts at the next transition; a new half-life continues the offsets
 * without a jump. Twins that play the same frames (levels that change only what is compared) show
 * what each switch does to the pose.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { MotionMatchingController, createInput, DEFAULT_CONTROLLER_OPTIONS, type ControllerOptions } from '../../src/runtime/controller/controller.js';
import type { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { DEFAULT_LOD_LEVELS, type LodLevel } from '../../src/runtime/lod/levels.js';
import { stepBlendWeight, savePose, blendFromSaved, LEVEL_BLEND_HALF_LIFE } from '../../src/runtime/controller/level-blend.js';
import { InertializationDecay } from '../../src/runtime/inertialization/decay.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import type { Database } from '../../src/database/database.js';
import { builtinSearch } from '../helpers/builtin-search.js';

let db: Database;
let port: MatcherSearchPort;
beforeAll(async () => {
  ({ db, port } = await builtinSearch());
});

const DT = 1 / 60;
/** A level that changes nothing but what `patch` sets (same searches, pose every step). */
const level = (patch: Partial<LodLevel>): LodLevel => ({ ...DEFAULT_LOD_LEVELS[0], ...patch });

/** Steps a controller `steps` times on the seeded wander script; `at(k, c)` runs before step k. Returns world positions per step. */
function run(options: ControllerOptions, steps: number, at?: (k: number, c: MotionMatchingController) => void): Float64Array[] {
  const c = new MotionMatchingController(db, options);
  const drive = new ScriptedDriver('wander', 3, 0, DT);
  const input = createInput();
  const out: Float64Array[] = [];
  for (let k = 0; k < steps; k++) {
    at?.(k, c);
    drive.drive(c.rootPosition, input);
    c.update(DT, input, port);
    out.push(Float64Array.from(c.worldPositions));
  }
  return out;
}

/** Largest joint distance between two poses (m). */
function gap(a: Float64Array, b: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i += 3) m = Math.max(m, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return m;
}

describe('the blend weight and the pose blend', () => {
  it('springs from 1 to 0 without leaving [0, 1], continuous, and lands exactly', () => {
    const S = Float64Array.of(1, 0);
    let prev = 1, steps = 0, maxStep = 0;
    while (S[0] !== 0 && steps < 1000) {
      stepBlendWeight(S, 0, 0, DT);
      expect(S[0]).toBeGreaterThanOrEqual(0);
      expect(S[0]).toBeLessThanOrEqual(prev);
      maxStep = Math.max(maxStep, prev - S[0]);
      prev = S[0];
      steps++;
    }
    expect(S[0]).toBe(0);
    // About 8 half-lives; no step moves more than a critically damped spring's steepest slope allows.
    expect(steps * DT).toBeGreaterThan(4 * LEVEL_BLEND_HALF_LIFE);
    expect(steps * DT).toBeLessThan(12 * LEVEL_BLEND_HALF_LIFE);
    expect(maxStep).toBeLessThan(0.15);
    // The first step barely moves (the rate starts at 0): no kink in the legs' motion.
    const T = Float64Array.of(1, 0);
    stepBlendWeight(T, 0, 0, DT);
    expect(1 - T[0]).toBeLessThan(0.03);
  });

  it('blends rotations along the short way and keeps untouched joints exactly', () => {
    const rot = Float64Array.of(0, 0, 0, 1, 0, 0.6, 0, 0.8);
    const tr = Float64Array.of(1, 2, 3, 4, 5, 6);
    savePose(rot, tr, 2);
    // The IK turns joint 1 (given with the opposite sign) and lowers joint 0.
    const r2 = Float64Array.of(0, 0, 0, 1, -0, -0.8, -0, -0.6), t2 = Float64Array.of(1, 1.9, 3, 4, 5, 6);
    blendFromSaved(r2, t2, 2, 0);
    expect(Array.from(r2)).toEqual([0, 0, 0, 1, 0, 0.6, 0, 0.8]);
    expect(t2[1]).toBe(2);
    const r3 = Float64Array.of(0, 0, 0, 1, -0, -0.8, -0, -0.6), t3 = Float64Array.of(1, 1.9, 3, 4, 5, 6);
    blendFromSaved(r3, t3, 2, 0.5);
    expect(Array.from(r3.subarray(0, 4))).toEqual([0, 0, 0, 1]);
    expect(Math.hypot(r3[4], r3[5], r3[6], r3[7])).toBeCloseTo(1, 12);
    expect(r3[5]).toBeGreaterThan(0.6); // between 0.6 and 0.8 on the short way, not through 0
    expect(r3[5]).toBeLessThan(0.8);
    expect(t3[1]).toBeCloseTo(1.95, 12);
  });
});

describe('InertializationDecay.rebase', () => {
  it('continues the offsets under a new half-life with no jump in value or rate', () => {
    const J = 3, dt = 1 / 120;
    const pose = (x: number) => ({
      positions: new Float64Array(3 * J).fill(x), velocities: new Float64Array(3 * J).fill(2 * x),
      rotations: Float64Array.from({ length: 4 * J }, (_, i) => (i % 4 === 3 ? Math.cos(x) : i % 4 === 1 ? Math.sin(x) : 0)),
      angularVelocities: new Float64Array(3 * J).fill(x),
    });
    const zeroPos = new Float64Array(3 * J), idRot = Float64Array.from({ length: 4 * J }, (_, i) => (i % 4 === 3 ? 1 : 0));
    const outP = new Float64Array(3 * J), outR = new Float64Array(4 * J);
    const b = new InertializationDecay(J);
    b.transition(pose(0.3), pose(0), 0.1, true);
    const trace = (d: InertializationDecay, hl: number): number => { d.apply(dt, hl, zeroPos, 0, idRot, 0, outP, outR); return outP[0]; };
    for (let k = 0; k < 5; k++) trace(b, 0.1);
    const p1 = trace(b, 0.1), p0 = trace(b, 0.1);
    b.rebase(0.1, 0.05);
    const n1 = trace(b, 0.05);
    // Without the rebase the closed form jumps to e^(-y' tau) of the start.
    const jumpy = new InertializationDecay(J);
    jumpy.transition(pose(0.3), pose(0), 0.1, true);
    for (let k = 0; k < 7; k++) trace(jumpy, 0.1);
    const jumped = trace(jumpy, 0.05);
    const before = p0 - p1, after = n1 - p0;
    // The offset's rate carries over (only its acceleration changes with the half-life) ...
    expect(Math.abs(after - before)).toBeLessThan(0.5 * Math.abs(before));
    // ... where the plain closed form would jump by many steps' worth.
    expect(Math.abs(jumped - p0)).toBeGreaterThan(10 * Math.abs(before));
  });
});

describe('level changes on a walking character', () => {
  const base: ControllerOptions = { ...DEFAULT_CONTROLLER_OPTIONS };
  const noIK: ControllerOptions = { ...base, footIK: false };

  it('foot IK switched off fades out instead of cutting to the animation, and back on fades in', () => {
    const steps = 360;
    const withIK = run(base, steps), without = run(noIK, steps);
    // Switch where the IK moves the pose most (after a second of walking).
    let at = 60, most = 0;
    for (let k = 60; k < steps - 120; k++) { const g = gap(withIK[k], without[k]); if (g > most) { most = g; at = k; } }
    expect(most, 'the IK must move the pose for this test to mean anything').toBeGreaterThan(0.002);
    const off = level({ footIK: false });
    const switched = run(base, steps, (k, c) => { if (k === at) c.setLevel(noIK, off); });
    // The first step after the switch is still almost the IK's pose (a cut would be `most` away).
    expect(gap(switched[at], withIK[at])).toBeLessThan(0.05 * most);
    // It moves no faster than either twin plus a blend of their difference.
    for (let k = at; k < at + 60; k++) {
      const own = gap(switched[k], switched[k - 1]);
      const twins = Math.max(gap(withIK[k], withIK[k - 1]), gap(without[k], without[k - 1]));
      expect(own, `step ${k}`).toBeLessThan(twins + 0.25 * most + 1e-9);
    }
    // Within a second it is the pose without IK, exactly (the IK no longer runs).
    for (let k = at + 60; k < steps; k++) expect(gap(switched[k], without[k]), `step ${k}`).toBe(0);
    // Back on: it starts from the pose without IK and fades in (no stale locks, no jump).
    const back = run(noIK, steps, (k, c) => { if (k === 0) c.setLevel(noIK, off); if (k === at) c.setLevel(base, level({})); });
    expect(gap(back[at], without[at])).toBeLessThan(0.05 * most + 1e-9);
  });

  it('inertialization switched off drains the offsets it has, exactly, and cuts at the next transition', () => {
    const steps = 600, cut: ControllerOptions = { ...base, inertialization: false };
    const off = level({ inertialization: false });
    let transitionAt = -1, nextTransition = -1;
    const ref = new MotionMatchingController(db, base);
    const drive = new ScriptedDriver('wander', 3, 0, DT), input = createInput();
    const refPoses: Float64Array[] = [];
    for (let k = 0; k < steps; k++) {
      drive.drive(ref.rootPosition, input);
      ref.update(DT, input, port);
      refPoses.push(Float64Array.from(ref.worldPositions));
      if (ref.transitioned && k > 60) { if (transitionAt < 0) transitionAt = k; else if (nextTransition < 0) nextTransition = k; }
    }
    expect(transitionAt).toBeGreaterThan(0);
    expect(nextTransition).toBeGreaterThan(transitionAt + 1);
    const switched = run(base, steps, (k, c) => { if (k === transitionAt + 1) c.setLevel(cut, off); });
    // Until the next transition the drained offsets are the very ones the twin applies.
    for (let k = transitionAt + 1; k < nextTransition; k++) expect(gap(switched[k], refPoses[k]), `step ${k}`).toBe(0);
    // The next transition cuts: the twin inertializes, the switched character does not.
    let differs = false;
    for (let k = nextTransition; k < Math.min(steps, nextTransition + 5); k++) differs ||= gap(switched[k], refPoses[k]) > 1e-6;
    expect(differs).toBe(true);
  });

  it('a new inertialization half-life continues the offsets without a jump', () => {
    const steps = 200, shorter: ControllerOptions = { ...base, inertializationHalfLife: 0.05 };
    const twin = run(base, steps);
    // The first transition after a second of walking, in the twin that keeps 0.1 s.
    const probe = new MotionMatchingController(db, base);
    const drive = new ScriptedDriver('wander', 3, 0, DT), input = createInput();
    let transition = -1;
    for (let k = 0; k < steps && transition < 0; k++) {
      drive.drive(probe.rootPosition, input);
      probe.update(DT, input, port);
      if (k > 60 && probe.transitioned) transition = k;
    }
    expect(transition).toBeGreaterThan(0);
    // 8 steps later e^(-y τ) and e^(-y' τ) are far apart: the plain closed form would jump there.
    const at = transition + 8;
    const switched = run(base, steps, (k, c) => { if (k === at) c.setLevel(shorter, level({ inertializationHalfLife: 0.05 })); });
    const gaps = Array.from({ length: 10 }, (_, d) => gap(switched[at + d], twin[at + d]));
    // The shorter half-life pulls away from the twin step by step, from (almost) nothing.
    expect(Math.max(...gaps), 'the offsets must be large enough to see').toBeGreaterThan(1e-3);
    expect(gaps[0]).toBeLessThan(0.25 * Math.max(...gaps));
  });
});
