/**
 * The root's height on uneven ground: the ground under the root plus an offset that a critically
 * damped spring takes to 0 (half-life `rootHalfLife`). The change of ground height that the ground's
 * slope explains (slope.ts: at most `followSlope`) is followed at once; the rest (a step's riser)
 * goes into the offset, so the root's height and vertical speed stay continuous and the body rises
 * or sinks onto the new level over a few half-lives. On a slope the root rides the ground with no
 * lag; a plain spring on the height would trail it by 2.9 · half-life · climb rate (23 cm up a 30°
 * slope at 1.4 m/s with 0.1 s).
 *
 * Works on the controller's state block (controller/state.ts: GROUND_*).
 */
import type { ControllerOptions } from './options.js';
import { GROUND_DT, GROUND_E, GROUND_OFFSET, GROUND_OFFSET_VEL, GROUND_PREV, GROUND_SLOPE, ROOT_POS, STEP_DT } from './state.js';
import { flatGround, sampleGround } from '../ground/ground.js';
import { explainedRise } from '../ground/slope.js';

// Temporaries of one call, shared by every controller of a thread.
const ASK = new Float64Array(3);
const ANSWER = new Float64Array(4);
/** Where a character whose ground was taken away (the option set back to null) goes: y = 0. */
const FLAT = flatGround(0);

/**
 * Sets the height p[1] of the root's new position (p[0], p[2]; the state still holds the old one)
 * from the ground. Also called with no ground while the root is off y = 0 (the option was cleared):
 * the root then settles on y = 0 by the same spring and is left exactly there, so a character that
 * never had a ground never runs this (flat results stay bit-identical).
 */
export function followGround(s: Float64Array, o: ControllerOptions, p: Float64Array): void {
  const dt = s[STEP_DT], go = o.groundOptions;
  ASK[0] = p[0]; ASK[1] = s[ROOT_POS + 1]; ASK[2] = p[2];
  sampleGround(o.ground ?? FLAT, ASK, 0, ANSWER);
  const g = ANSWER[0], gx = -ANSWER[1] / ANSWER[2], gz = -ANSWER[3] / ANSWER[2];
  const dx = p[0] - s[ROOT_POS], dz = p[2] - s[ROOT_POS + 2];
  // The part of the change the ground's slope does not explain (a step): the offset takes it, so the root does not jump.
  s[GROUND_OFFSET] -= g - s[GROUND_PREV] - explainedRise(dx, dz, s[GROUND_SLOPE], s[GROUND_SLOPE + 1], gx, gz, Math.tan(go.followSlope));
  s[GROUND_PREV] = g; s[GROUND_SLOPE] = gx; s[GROUND_SLOPE + 1] = gz;
  // = decaySpringUpdate(s, GROUND_OFFSET, s, GROUND_OFFSET_VEL, rootHalfLife, dt), e^(−y·dt) cached per dt.
  const y = (2 * Math.LN2) / go.rootHalfLife;
  if (dt !== s[GROUND_DT]) { s[GROUND_DT] = dt; s[GROUND_E] = Math.exp(-y * dt); }
  const e = s[GROUND_E], x = s[GROUND_OFFSET], v = s[GROUND_OFFSET_VEL], j = v + x * y;
  s[GROUND_OFFSET] = e * (x + j * dt);
  s[GROUND_OFFSET_VEL] = e * (v - j * y * dt);
  p[1] = g + s[GROUND_OFFSET];
  if (o.ground === null && Math.abs(s[GROUND_OFFSET]) < 1e-6 && Math.abs(s[GROUND_OFFSET_VEL]) < 1e-5) {
    // Back on the plane: exactly as if there had never been a ground.
    p[1] = 0; s[GROUND_OFFSET] = 0; s[GROUND_OFFSET_VEL] = 0; s[GROUND_PREV] = 0; s[GROUND_SLOPE] = 0; s[GROUND_SLOPE + 1] = 0;
  }
}

/** Puts the root (at the state's x, z) on the ground, with no offset (a reset; nothing to do on flat ground). */
export function placeOnGround(s: Float64Array, o: ControllerOptions): void {
  s[GROUND_OFFSET] = 0; s[GROUND_OFFSET_VEL] = 0; s[GROUND_PREV] = 0; s[GROUND_SLOPE] = 0; s[GROUND_SLOPE + 1] = 0;
  if (o.ground === null) return;
  ASK[0] = s[ROOT_POS]; ASK[1] = s[ROOT_POS + 1]; ASK[2] = s[ROOT_POS + 2];
  sampleGround(o.ground, ASK, 0, ANSWER);
  s[ROOT_POS + 1] = ANSWER[0];
  s[GROUND_PREV] = ANSWER[0]; s[GROUND_SLOPE] = -ANSWER[1] / ANSWER[2]; s[GROUND_SLOPE + 1] = -ANSWER[3] / ANSWER[2];
  s[GROUND_OFFSET] = 0; s[GROUND_OFFSET_VEL] = 0;
}
