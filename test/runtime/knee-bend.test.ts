/**
 * foot IK's bend of a knee beyond the animated one changes its rate no more suddenly than a limit
 * (runtime/foot-ik/knee-bend.ts; the limit is the captures' own knees', CapturedData), and approaches
 * what its target asks no faster than it can stop there. The arithmetic, on a leg of two 0.45 m
 * bones; what it does on the real captures is test/runtime/ground-pops-mocap.test.ts.
 */
import { describe, it, expect } from 'vitest';
import { KNEE_BEND_ACCELERATION_FLOOR, limitKneeBend, shownKneeBend } from '../../src/runtime/foot-ik/knee-bend.js';
import { IK_TARGET, KNEE_ANIM, KNEE_BEND, KNEE_BEND_RATE, LEG_SIZE, STEP_DT } from '../../src/runtime/foot-ik/state.js';
import type { LegJoints } from '../../src/runtime/foot-ik/rig.js';

/** A straight leg of two 0.45 m bones hanging from a hip at 0.9 m (joints 0 hip, 1 knee, 2 ankle). */
const LEG = { hip: 0, knee: 1, foot: 2, length: 0.9 } as unknown as LegJoints;
const STRAIGHT = Float64Array.of(0, 0.9, 0, 0, 0.45, 0, 0, 0, 0);

/** The bend a two-bone solve gives for IK_TARGET (the law of cosines with 0.45 m bones). */
function bendForTarget(): number {
  const d = Math.hypot(IK_TARGET[0], IK_TARGET[1] - 0.9, IK_TARGET[2]);
  return Math.PI - Math.acos((2 * 0.45 * 0.45 - d * d) / (2 * 0.45 * 0.45));
}

/** A target `bend` radians of bend away from the hip, straight below it. */
function targetAtBend(bend: number): void {
  const d = Math.sqrt(2 * 0.45 * 0.45 * (1 + Math.cos(bend)));
  IK_TARGET[0] = 0; IK_TARGET[1] = 0.9 - d; IK_TARGET[2] = 0;
}

describe('the knee of a leg on uneven ground', () => {
  it('bends from straight no faster than the limit lets its rate change, and passes what it may through', () => {
    const S = new Float64Array(2 * LEG_SIZE + 20), most = 500, dt = 1 / 60;
    S[STEP_DT] = dt;
    // The animation holds the leg straight; the last step showed it straight and still.
    expect(shownKneeBend(LEG, STRAIGHT)).toBe(0);
    S[KNEE_ANIM] = 0; S[KNEE_BEND] = 0; S[KNEE_BEND_RATE] = 0;
    // A target that asks for 0.6 rad at once: the first step gets most·dt² of it.
    targetAtBend(0.6);
    limitKneeBend(S, 0, LEG, STRAIGHT, most);
    expect(bendForTarget()).toBeCloseTo(most * dt * dt, 9);
    // Already bending at 5 rad/s: up to (5 + most·dt)·dt more.
    S[KNEE_BEND_RATE] = 5;
    targetAtBend(0.6);
    limitKneeBend(S, 0, LEG, STRAIGHT, most);
    expect(bendForTarget()).toBeCloseTo((5 + most * dt) * dt, 9);
    // A target within what the rate may become is left as it is.
    S[KNEE_BEND_RATE] = 0;
    targetAtBend(0.05);
    limitKneeBend(S, 0, LEG, STRAIGHT, most);
    expect(bendForTarget()).toBeCloseTo(0.05, 9);
    // The animation's own bend is not foot IK's to limit: animated at 0.6 already, a target at 0.6 is left alone.
    S[KNEE_ANIM] = 0.6; S[KNEE_BEND] = 0;
    targetAtBend(0.6);
    limitKneeBend(S, 0, LEG, STRAIGHT, most);
    expect(bendForTarget()).toBeCloseTo(0.6, 9);
  });

  it('keeps a floor under the limit: knees the captures hardly bend (an idle alone) still follow the ground', () => {
    const S = new Float64Array(2 * LEG_SIZE + 20), dt = 1 / 60;
    S[STEP_DT] = dt; S[KNEE_ANIM] = 0; S[KNEE_BEND] = 0; S[KNEE_BEND_RATE] = 0;
    targetAtBend(0.6);
    limitKneeBend(S, 0, LEG, STRAIGHT, 0.55);
    expect(bendForTarget()).toBeCloseTo(KNEE_BEND_ACCELERATION_FLOOR * dt * dt, 9);
  });

  it('holds no faster than it can stop at what is wanted: a bend coming back does not overshoot into a fold', () => {
    const S = new Float64Array(2 * LEG_SIZE + 20), most = 500, dt = 1 / 60;
    S[STEP_DT] = dt; S[KNEE_ANIM] = 0;
    // 0.1 rad from what is wanted, bending at 20 rad/s: stopping takes √(2·most·0.1) = 10 rad/s at most now.
    S[KNEE_BEND] = 0.5; S[KNEE_BEND_RATE] = 20;
    targetAtBend(0.6);
    limitKneeBend(S, 0, LEG, STRAIGHT, most);
    expect(bendForTarget()).toBeCloseTo(0.5 + Math.max(Math.sqrt(2 * most * 0.1), 20 - most * dt) * dt, 9);
    expect(bendForTarget()).toBeLessThan(0.6 + 0.1);
  });
});
