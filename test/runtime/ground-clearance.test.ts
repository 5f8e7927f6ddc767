/**
 * A free foot on uneven ground keeps its clearance over the ground under it (runtime/foot-ik/ground-step.ts
 * clearGround), and lets go of it smoothly: measured from the output joint positions, as the quality
 * command measures pops. The built-in database walks across a 20 cm bar (the root on the floor, so
 * every foot that swings over the bar is held up over it); a foot held up over the bar, once past
 * its far edge, came down to the floor in one step (on the steps terrain the toe's velocity jumped
 * 12.9 m/s, the built-in database's own largest is 4.9).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import type { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { FootIK, DEFAULT_FOOT_IK_OPTIONS } from '../../src/runtime/foot-ik/foot-ik.js';
import { HeightField } from '../../src/runtime/ground/height-field.js';
import { DEFAULT_GROUND_OPTIONS } from '../../src/runtime/ground/ground-options.js';
import { qualityRig } from '../../src/runtime/quality/quality-rig.js';
import type { Database } from '../../src/database/database.js';
import { builtinSearch } from '../helpers/builtin-search.js';

let db: Database;
let port: MatcherSearchPort;
beforeAll(async () => {
  ({ db, port } = await builtinSearch());
});

const HZ = 60;
const BAR = 0.2;

/** Flat ground with bars BAR high and 0.3 m deep across the walk (along +z), every 1.5 m from z = 1.5. */
function bars(): HeightField {
  const spacing = 0.05, columns = 81, rows = 301; // x in [-2, 2], z in [-1, 14]
  const heights = new Float64Array(columns * rows);
  for (let r = 0; r < rows; r++) {
    const z = -1 + r * spacing, along = z - 1.5, k = Math.floor(along / 1.5);
    const onBar = along >= 0 && k < 8 && along - 1.5 * k < 0.3;
    if (onBar) for (let c = 0; c < columns; c++) heights[r * columns + c] = BAR;
  }
  return HeightField.fromArray(heights, { columns, rows, spacing, originX: -2, originZ: -1 });
}

/**
 * The largest distance (m) a foot joint (toes and ankles) moves down in one step over a walk across
 * the bars with foot IK on that ground, or (null) on flat ground: the walk's own.
 */
function largestFootDrop(ground: HeightField | null): number {
  const c = new MotionMatchingController(db, { footIK: false });
  const ik = new FootIK(db, DEFAULT_FOOT_IK_OPTIONS);
  ik.reset(c.worldPositions);
  const feet = qualityRig(db).feet, input = createInput();
  input.velocityZ = 1.4;
  const y1 = new Float64Array(feet.length);
  let largest = 0;
  for (let s = 0; s < 8 * HZ; s++) {
    c.update(1 / HZ, input, port);
    if (ground) ik.apply(c, 1 / HZ, ground, DEFAULT_GROUND_OPTIONS);
    else ik.apply(c, 1 / HZ);
    const wp = c.worldPositions;
    for (let k = 0; k < feet.length; k++) {
      const y = wp[3 * feet[k] + 1], down = y1[k] - y;
      if (s >= 1) largest = Math.max(largest, down);
      y1[k] = y;
    }
  }
  return largest;
}

describe('foot IK over a bar', () => {
  it('lets a foot held up over the bar come down past its edge without a jump', () => {
    const flat = largestFootDrop(null), over = largestFootDrop(bars());
    console.log(`largest distance a foot joint moves down in one step (cm): flat ${(100 * flat).toFixed(1)}, over ${BAR * 100} cm bars ${(100 * over).toFixed(1)}`);
    // Let go of in one step the held height drops whole (BAR); by the foot spring, over several.
    expect(over).toBeLessThan(Math.max(1.5 * flat, BAR / 3));
  });
});
