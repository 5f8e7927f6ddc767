/**
 * A free foot on uneven ground follows what the slope under it explains at once and smooths the rest
 * (runtime/foot-ik/foot-ground.ts followGroundUnderFoot, runtime/ground/slope.ts explainedRise). The
 * slope explains the ground's change over the way the sampled point (the foot's target) moved since
 * the last step, not over the gap between where the foot was shown and its target: a released foot
 * whose leg could not reach a target 74 cm off was shown 20 cm short of it every step, and on a step's
 * edge that "move" was read as 10 cm of rise a step, for three steps, then none (13.9 m/s at the
 * ankle at 144 Hz, the shared locomotion captures' wander on the steps).
 */
import { describe, expect, it } from 'vitest';
import { followGroundUnderFoot } from '../../src/runtime/foot-ik/foot-ground.js';
import { FOOT_IK_STATE_SIZE, SHIFT, SHIFT_OFFSET, SHOWN, STEP_DT } from '../../src/runtime/foot-ik/state.js';
import { DEFAULT_GROUND_OPTIONS } from '../../src/runtime/ground/ground-options.js';
import { HeightField } from '../../src/runtime/ground/height-field.js';
import type { LegJoints } from '../../src/runtime/foot-ik/rig.js';

const DT = 1 / 144;
const leg = { hip: 0, knee: 0, foot: 0, contact: 0, length: 0.9 } as unknown as LegJoints;
/** No look-ahead: the shift alone. */
const OPTIONS = { ...DEFAULT_GROUND_OPTIONS, swingLookAhead: 0 };

/** An even slope rising `grade` m per m along +z. */
function slope(grade: number): HeightField {
  const spacing = 0.01, columns = 41, rows = 301;
  const heights = new Float64Array(columns * rows);
  for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) heights[r * columns + c] = (-1 + r * spacing) * grade;
  return HeightField.fromArray(heights, { columns, rows, spacing, originX: -0.2, originZ: -1 });
}

/**
 * A free foot's target held at z = `z` (its contact point's animation), stepped `steps` times, each
 * step shown `gap` m short of it (behind, along −z) as a leg that cannot reach it shows it; the
 * shift's offset (m) after each step.
 */
function offsets(ground: HeightField, z: number, gap: number, steps: number): number[] {
  const S = new Float64Array(FOOT_IK_STATE_SIZE);
  S[STEP_DT] = DT;
  const wp = Float64Array.of(0, 0.05, z), root = Float64Array.of(0, 0, z);
  const out: number[] = [];
  for (let s = 0; s < steps; s++) {
    S[SHOWN] = 0; S[SHOWN + 1] = 0.05; S[SHOWN + 2] = z - gap;
    followGroundUnderFoot(S, 0, leg, wp, root, ground, OPTIONS, s === 0);
    out.push(S[SHIFT_OFFSET]);
  }
  return out;
}

describe('a free foot following the slope under it', () => {
  it('is not lifted by the gap between where it is shown and its target', () => {
    // The target does not move, so the ground under it does not change: nothing to follow, whatever
    // the gap the leg leaves (20 cm on a 0.5 slope was read as 10 cm of rise a step).
    const held = offsets(slope(0.5), 0.3, 0.2, 4);
    for (const o of held) expect(Math.abs(o)).toBeLessThan(1e-6);
  });

  it('follows at once what the slope explains of a moving target', () => {
    // Moved 1 cm up the slope a step (shown where it is): the ground's change is the slope's, nothing
    // left for the offset.
    const S = new Float64Array(FOOT_IK_STATE_SIZE), ground = slope(0.5);
    S[STEP_DT] = DT;
    const root = Float64Array.of(0, 0, 0);
    for (let s = 0; s < 4; s++) {
      const z = 0.3 + 0.01 * s, wp = Float64Array.of(0, 0.05, z);
      S[SHOWN] = 0; S[SHOWN + 1] = 0.05; S[SHOWN + 2] = z - 0.01;
      followGroundUnderFoot(S, 0, leg, wp, root, ground, OPTIONS, s === 0);
      expect(Math.abs(S[SHIFT_OFFSET])).toBeLessThan(1e-6);
      expect(S[SHIFT]).toBeCloseTo(z * 0.5, 6);
    }
  });
});
