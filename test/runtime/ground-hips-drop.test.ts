/**
 * On uneven ground the hips come down for what the ground adds to a leg's need, not for a lock the
 * body has moved away from on level ground (runtime/foot-ik/hips.ts reachDrop). Before, any lock
 * within sideways reach was held by lowering the hips as far as maxHipsDropLegLengths allows
 * (0.35 leg lengths): a standing character whose lock was 60-70 cm out held its hips 28 cm down for
 * seconds, and on the built-in steps the hips sat 16.6 cm below the frame played at the 5th
 * percentile in the stop-go (the real captures: 24.8). Measured from the output: the hips' height
 * over the ground under them against the captured pose's at the frame played (the quality meter).
 */
import { describe, expect, it } from 'vitest';
import { REACH_DROP, reachDrop } from '../../src/runtime/foot-ik/hips.js';
import type { LegJoints } from '../../src/runtime/foot-ik/rig.js';
import { runCliInProcess } from '../helpers/cli.js';

/** A leg of two 0.45 m bones hanging straight down from a hip at 0.9 m (joints 0 hip, 1 knee, 2 ankle). */
const LEG = { hip: 0, knee: 1, foot: 2, length: 0.9 } as unknown as LegJoints;
const WP = Float64Array.of(0, 0.9, 0, 0, 0.45, 0, 0, 0, 0);
/** How far the hips must come down for the ankle target (x, y, z). */
function drop(x: number, y: number, z: number, ground: boolean, rise: number): number {
  reachDrop(LEG, WP, x, y, z, ground, rise);
  return REACH_DROP[0];
}

describe('the hips drop on uneven ground', () => {
  it('lowers the hips for a target the ground has moved down, and not for one the body has moved away from', () => {
    // Flat ground (maxHipsDrop): the whole need, as always. 0.6 m out at the floor: reach 0.89 m.
    const out = drop(0.6, 0, 0, false, 0);
    expect(out).toBeCloseTo(0.9 - Math.sqrt(0.89 ** 2 - 0.36), 9);
    // Uneven ground, the same target on level ground: nothing (the flat rules let the lock go).
    expect(drop(0.6, 0, 0, true, 0)).toBe(0);
    // A step 15 cm down under a target the leg reaches at the animation's height (10 cm up there):
    // what the leg cannot take of the step (its reach: 97% of its length on uneven ground).
    const reach = 0.9 - 0.03 * 0.9;
    expect(drop(0.2, -0.05, 0, true, -0.15)).toBeCloseTo(0.95 - Math.sqrt(reach ** 2 - 0.04), 9);
    // The same step under a target already out of reach at the animation's height: the step's 15 cm only.
    expect(drop(0.6, -0.15, 0, true, -0.15)).toBeCloseTo(0.15, 9);
    // A step up: nothing.
    expect(drop(0.6, 0.15, 0, true, 0.15)).toBe(0);
  });

  it('keeps a crowd on the built-in steps at the height of the frames it plays (median within 2 cm, no deep crouch)', async () => {
    for (const scenario of ['stop-go', 'strafe']) {
      const r = await runCliInProcess(['simulate', '--scenario', scenario, '--terrain', 'steps', '--agents', '24', '--seconds', '10', '--hz', '60', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const q = (JSON.parse(r.stdout) as { quality: { hipsOffsetCm: number; hipsOffsetP5Cm: number; popMax: number } }).quality;
      console.log(`${scenario} on the built-in steps: hips ${q.hipsOffsetCm.toFixed(2)} cm against the frame played (median), ${q.hipsOffsetP5Cm.toFixed(2)} cm (5th percentile); largest velocity change ${q.popMax.toFixed(2)} m/s`);
      // Before: stop-go -2.17 / -16.63 cm, strafe -2.21 / -13.68 cm.
      expect(Math.abs(q.hipsOffsetCm)).toBeLessThanOrEqual(2);
      expect(q.hipsOffsetP5Cm).toBeGreaterThan(-10);
    }
  });
});
