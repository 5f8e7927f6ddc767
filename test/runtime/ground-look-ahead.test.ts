/**
 * A swinging foot on uneven ground looks ahead for higher ground (runtime/foot-ik/foot-ground.ts
 * followGroundUnderFoot: the ground `swingLookAhead` seconds on at the foot's speed, at most half a
 * leg length) and rises before it instead of hitting its edge. It takes the highest ground anywhere
 * on the way there, not only at the end of the way: a bar narrower than the look-ahead lies between
 * the foot and the point looked at, and seen only once it was under the foot it lifted a running
 * foot 7 cm in one step (the built-in database over 20 cm bars: a knee at 5.5 m/s).
 */
import { describe, expect, it } from 'vitest';
import { followGroundUnderFoot } from '../../src/runtime/foot-ik/foot-ground.js';
import { FOOT_IK_STATE_SIZE, GROUND_AHEAD, SHIFT_PREV, SHOWN, STEP_DT } from '../../src/runtime/foot-ik/state.js';
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
});
