/**
 * A planted foot's heel kept out of the ground behind it (runtime/foot-ik/foot-ground.ts clearHeel)
 * adds to the raise that lets the leg reach the toe (pivotAboutContact, S[HEEL_RAISE]): the two
 * together turn the foot no more than MAX_HEEL_RAISE, and never past the vertical. Added up beyond
 * it, a heel kept over a riser's edge while the leg needed it raised to reach turned the foot
 * 80 degrees and on; the toe-to-ankle line went past the vertical, the ankle swung out to full
 * stretch within a step and the knee jumped 12 cm (10.1 m/s on the shared locomotion captures on
 * the steps).
 */
import { describe, expect, it } from 'vitest';
import { clearHeel } from '../../src/runtime/foot-ik/foot-ground.js';
import { ANKLE_HEIGHT, CLEAR, CLEAR_VEL, FOOT_IK_STATE_SIZE, FOOT_WORLD_ROT, HEEL_RAISE, IK_TARGET, LOCK, MAX_HEEL_RAISE, STEP_DT } from '../../src/runtime/foot-ik/state.js';
import { DEFAULT_GROUND_OPTIONS } from '../../src/runtime/ground/ground-options.js';
import { HeightField } from '../../src/runtime/ground/height-field.js';

/** Ground 0 ahead of z = -0.05 and `behind` m high from there back (a riser under the heel). */
function riserBehind(behind: number): HeightField {
  const spacing = 0.01, columns = 21, rows = 61; // x in [-0.1, 0.1], z in [-0.4, 0.2]
  const heights = new Float64Array(columns * rows);
  for (let r = 0; r < rows; r++) if (-0.4 + r * spacing < -0.05) for (let c = 0; c < columns; c++) heights[r * columns + c] = behind;
  return HeightField.fromArray(heights, { columns, rows, spacing, originX: -0.1, originZ: -0.4 });
}

/**
 * The elevation (radians) of the toe-to-ankle line after clearHeel, for a foot whose toe is planted
 * at the origin with its ankle 0.14 m behind at `elevation`, of which `pivot` is the raise to reach,
 * and a clearance of `clearance` already under way.
 */
function elevationAfter(elevation: number, pivot: number, clearance: number): number {
  const S = new Float64Array(FOOT_IK_STATE_SIZE), r = 0.14;
  S[STEP_DT] = 1 / 60;
  S[LOCK] = 0; S[LOCK + 1] = 0.02; S[LOCK + 2] = 0;
  S[ANKLE_HEIGHT] = 0.1;
  S[HEEL_RAISE] = pivot;
  S[CLEAR] = clearance; S[CLEAR_VEL] = 0;
  IK_TARGET[0] = 0; IK_TARGET[1] = 0.02 + r * Math.sin(elevation); IK_TARGET[2] = -r * Math.cos(elevation);
  FOOT_WORLD_ROT.set([0, 0, 0, 1]);
  clearHeel(S, 0, riserBehind(0.5), DEFAULT_GROUND_OPTIONS);
  return Math.atan2(IK_TARGET[1] - 0.02, -IK_TARGET[2]);
}

describe("a planted foot's heel clearance", () => {
  it('turns the foot, with the raise to reach the toe, by at most MAX_HEEL_RAISE from its animated pitch', () => {
    // Animated flat, raised 0.7 rad to reach, a clearance of 0.6 rad under way over a 50 cm riser.
    const e = elevationAfter(0.7, 0.7, 0.6);
    console.log(`raise to reach 0.70 rad + clearance under way 0.60 rad: the foot turned ${e.toFixed(3)} rad from flat (MAX_HEEL_RAISE ${MAX_HEEL_RAISE.toFixed(3)})`);
    expect(e).toBeGreaterThan(0.7);
    expect(e).toBeLessThanOrEqual(MAX_HEEL_RAISE + 1e-9);
  });

  it('never turns a foot the animation has steep past the vertical', () => {
    // Animated at 1.3 rad (a toe push-off), no raise to reach, a clearance under way.
    const e = elevationAfter(1.3, 0, 0.6);
    console.log(`animated at 1.30 rad, clearance under way 0.60 rad: the toe-to-ankle line at ${e.toFixed(3)} rad`);
    expect(e).toBeGreaterThanOrEqual(1.3 - 1e-9);
    expect(e).toBeLessThan(0.5 * Math.PI);
  });

  it('still raises a flat foot over a riser behind it', () => {
    expect(elevationAfter(0, 0, 0)).toBeGreaterThan(0.01);
  });
});
