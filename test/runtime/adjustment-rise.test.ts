/**
 * The adjustment of the character's root towards the simulated trajectory (runtime/controller/
 * root-adjustment.ts moveRoot) is limited by the animation's own motion this step; that limit grows
 * by no more in a step than the captures' own body ever changes its velocity in a frame
 * (capturedData's bodyVelocityChangeMax, in the controller's state). At a transition from a slow
 * clip to a run the limit jumped with the run's speed, and the lag built up while slow was closed
 * at the run's speed from the first step: the whole body jumped. The limit falls at once: a
 * character whose animation stops is not dragged on.
 */
import { describe, expect, it } from 'vitest';
import { moveRoot } from '../../src/runtime/controller/root-adjustment.js';
import { DEFAULT_CONTROLLER_OPTIONS } from '../../src/runtime/controller/options.js';
import { ADJUST_CAP, ADJUST_CAP_RISE, ADJUST_DT, ROOT_POS, ROOT_ROT, SIM_POS, SIM_ROT, STATE_SIZE, STEP_DT } from '../../src/runtime/controller/state.js';
import { largestVelocityChange } from '../helpers/velocity-change.js';

const HZ = 60, DT = 1 / HZ;
/** The captures' largest change of the body's velocity in a frame (m/s). */
const BODY_CHANGE = 0.6;

/**
 * The root's z (m) per step: the animation walks along +z at `before` m/s for 30 steps, then at
 * `after` m/s (a transition to a faster clip), while the simulated trajectory is 0.5 m ahead of the
 * character and moves on at `after` m/s from the switch. `change`: the limit (Infinity: the rule undone).
 */
function rootAlong(change: number, before: number, after: number, steps = 60): number[] {
  const s = new Float64Array(STATE_SIZE);
  s[ROOT_ROT + 3] = 1; s[SIM_ROT + 3] = 1; s[STEP_DT] = DT; s[ADJUST_DT] = -1; s[ADJUST_CAP_RISE] = change; s[ADJUST_CAP] = Number.POSITIVE_INFINITY;
  const step = new Float64Array(4), xs: number[] = [];
  for (let t = 0; t < steps; t++) {
    const speed = t < 30 ? before : after;
    // (the simulation keeps 0.5 m ahead while slow, then runs off at the new speed)
    s[SIM_POS + 2] = t < 30 ? s[ROOT_POS + 2] + 0.5 : s[SIM_POS + 2] + after * DT;
    step[0] = 0; step[2] = speed * DT; step[3] = 0;
    // The root faces +z with identity rotation: a local +z step is world +z.
    moveRoot(s, DEFAULT_CONTROLLER_OPTIONS, step, false);
    xs.push(s[ROOT_POS + 2]);
  }
  return xs;
}

describe('the adjustment towards the simulated trajectory', () => {
  it('speeds up by no more than the captures\' own change of the body\'s velocity a step, beyond the animation\'s own change', () => {
    // The root's own change at the switch is 2.5 m/s (the clip); the adjustment may add at most
    // BODY_CHANGE a step on top of it.
    const x = rootAlong(BODY_CHANGE, 0.2, 2.7);
    expect(largestVelocityChange(x, DT)).toBeLessThanOrEqual(2.5 + BODY_CHANGE + 1e-6);
    // It still closes the lag: the root catches up with the simulation within a second.
    expect(x.at(-1)! - x[29]).toBeGreaterThan(2.7 * 30 * DT + 0.2);
  });

  it('jumps with the animation\'s speed when the rule is undone', () => {
    // The limit ratio × moved jumps from 0.2 to 2.7 m/s: the lag closes at the run's speed at once.
    expect(largestVelocityChange(rootAlong(Number.POSITIVE_INFINITY, 0.2, 2.7), DT)).toBeGreaterThan(4.5);
  });

  it('stops at once with the animation: a character that stops is not dragged on', () => {
    const x = rootAlong(BODY_CHANGE, 2.7, 0);
    // After the switch to standing the root does not move at all.
    expect(Math.abs(x[59] - x[31])).toBe(0);
  });
});
