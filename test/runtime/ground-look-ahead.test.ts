/**
 * A swinging foot on uneven ground looks ahead for higher ground (runtime/foot-ik/foot-ground.ts
 * followGroundUnderFoot: the ground `swingLookAhead` seconds on at the foot's speed, at most half a
 * leg length) and rises before it instead of hitting its edge. It takes the highest ground anywhere
 * on the way there, not only at the end of the way: a bar narrower than the look-ahead lies between
 * the foot and the point looked at, and seen only once it was under the foot it lifted a running
 * foot 7 cm in one step (the built-in database over 20 cm bars: a knee at 5.5 m/s).
 * A fast foot also sees a step further on (stepsBeyondReach), as much of it as its clearance could
 * not gain by the time it gets there, and no even slope there.
 */
import { describe, expect, it } from 'vitest';
import { CLEAR_RISE_SPEED, followGroundUnderFoot } from '../../src/runtime/foot-ik/foot-ground.js';
import { FOOT_IK_STATE_SIZE, GROUND_AHEAD, SHIFT, SHIFT_PREV, SHOWN, STEP_DT } from '../../src/runtime/foot-ik/state.js';
import { DEFAULT_GROUND_OPTIONS } from '../../src/runtime/ground/ground-options.js';
import { HeightField } from '../../src/runtime/ground/height-field.js';
import type { LegJoints } from '../../src/runtime/foot-ik/rig.js';

const DT = 1 / 60;
/** One joint, the contact point; a 0.9 m leg (looks ahead at most 0.45 m). */
const leg = { hip: 0, knee: 0, foot: 0, contact: 0, length: 0.9 } as unknown as LegJoints;

/** Flat ground with a bar `height` m high between z = `from` and z = `from` + `depth` (across x). */
function bar(from: number, depth: number, height: number): HeightField {
  const spacing = 0.01, columns = 41, rows = 301; // x in [-0.2, 0.2], z in [-1, 2]
  const heights = new Float64Array(columns * rows);
  for (let r = 0; r < rows; r++) {
    const z = -1 + r * spacing;
    if (z >= from && z <= from + depth) for (let c = 0; c < columns; c++) heights[r * columns + c] = height;
  }
  return HeightField.fromArray(heights, { columns, rows, spacing, originX: -0.2, originZ: -1 });
}

/**
 * Flat ground up to z = `from`, then rising by `grade` (rise per metre) from there on, or a step of
 * `grade` m when `step`; plus a step of `extra` m from z = `extraFrom` on.
 */
function rising(from: number, grade: number, step = false, extraFrom = Infinity, extra = 0): HeightField {
  const spacing = 0.01, columns = 41, rows = 301;
  const heights = new Float64Array(columns * rows);
  for (let r = 0; r < rows; r++) {
    const z = -1 + r * spacing;
    if (z >= from) for (let c = 0; c < columns; c++) heights[r * columns + c] = (step ? grade : (z - from) * grade) + (z >= extraFrom ? extra : 0);
  }
  return HeightField.fromArray(heights, { columns, rows, spacing, originX: -0.2, originZ: -1 });
}

/** GROUND_AHEAD of a foot at z = 0, 5 cm up, that moved +z at `speed` m/s since the last step. */
function groundAhead(ground: HeightField, speed: number): number {
  const S = new Float64Array(FOOT_IK_STATE_SIZE);
  S[STEP_DT] = DT;
  S[SHOWN] = 0; S[SHOWN + 1] = 0.05; S[SHOWN + 2] = -speed * DT;
  S[SHIFT_PREV] = 0;
  const wp = Float64Array.of(0, 0.05, 0), root = Float64Array.of(0, 0, -0.3);
  followGroundUnderFoot(S, 0, leg, wp, root, ground, DEFAULT_GROUND_OPTIONS, false);
  return S[GROUND_AHEAD];
}

describe('a swinging foot looking ahead', () => {
  it('sees a bar between it and the end of its look-ahead', () => {
    // Running (3 m/s: the look-ahead reaches 0.45 m), a 20 cm bar 10 cm deep from 15 cm ahead.
    expect(groundAhead(bar(0.15, 0.1, 0.2), 3)).toBeCloseTo(0.2, 6);
  });

  it('sees the same bar at the end of its look-ahead, and nothing beyond it', () => {
    expect(groundAhead(bar(0.4, 0.1, 0.2), 3)).toBeCloseTo(0.2, 6);
    expect(groundAhead(bar(0.6, 0.1, 0.2), 3)).toBe(0);
  });

  it('sees nothing ahead on flat ground', () => {
    expect(groundAhead(bar(0.6, 0.1, 0), 3)).toBe(0);
  });

  it('moving fast, sees a step beyond half a leg length, less what its clearance can gain by the time it gets there', () => {
    // 7 m/s: swingLookAhead (0.16 s) reaches 1.12 m; the near look-ahead ends at 0.45 m.
    const lag = DEFAULT_GROUND_OPTIONS.footHalfLife / Math.LN2;
    // 0.8 m ahead: reached 0.05 s after the near look-ahead's end, within the spring's lag: the whole 21 cm.
    expect(groundAhead(rising(0.8, 0.21, true), 7)).toBeCloseTo(0.21, 6);
    // 1.05 m ahead: reached 0.086 s after it; the clearance can gain CLEAR_RISE_SPEED for what is past
    // the lag (seen at the first point of the way past the step, at most 9 cm further on).
    const at = groundAhead(rising(1.05, 0.21, true), 7), asked = (d: number) => 0.21 - CLEAR_RISE_SPEED * ((d - 0.45) / 7 - lag);
    expect(at).toBeLessThanOrEqual(asked(1.05) + 1e-9);
    expect(at).toBeGreaterThanOrEqual(asked(1.05 + 0.09));
    expect(at).toBeGreaterThan(0.15);
    // Beyond its reach, nothing; nor at 3 m/s (reach 0.48 m).
    expect(groundAhead(rising(1.2, 0.21, true), 7)).toBe(0);
    expect(groundAhead(rising(0.8, 0.21, true), 3)).toBe(0);
  });

  it('moving fast, takes an even slope beyond half a leg length for no step', () => {
    // A 20-degree hill from 0.6 m ahead: no riser, nothing to rise for before the foot is on it.
    expect(groundAhead(rising(0.6, Math.tan((20 * Math.PI) / 180)), 7)).toBe(0);
    // The same hill with a 15 cm step on it 0.8 m ahead: from the step on, the ground counts (over
    // flat ground from the near look-ahead's end: the hill's rise past the step as well).
    const grade = Math.tan((20 * Math.PI) / 180), stepped = groundAhead(rising(0.6, grade, false, 0.8, 0.15), 7);
    expect(stepped).toBeGreaterThan(0.15 + 0.2 * grade - 1e-6);
    expect(stepped).toBeLessThan(0.15 + 0.52 * grade);
  });

  it('just released, takes the ground under its target as it is, whatever the gap it was shown at', () => {
    // A toe let go of after its leg could not reach its lock: shown 30 cm short of it, with a 20 cm
    // bar between. That gap is no motion: looked along, the bar became the ground under the foot
    // (its floor lifted a released toe 10.5 cm in one step on the shared locomotion captures).
    const S = new Float64Array(FOOT_IK_STATE_SIZE);
    S[STEP_DT] = DT;
    S[SHOWN] = 0; S[SHOWN + 1] = 0.05; S[SHOWN + 2] = -0.3;
    const wp = Float64Array.of(0, 0.05, 0), root = Float64Array.of(0, 0, -0.3);
    followGroundUnderFoot(S, 0, leg, wp, root, bar(0.15, 0.1, 0.2), DEFAULT_GROUND_OPTIONS, true);
    expect(S[SHIFT]).toBeCloseTo(0, 9);
  });
});
