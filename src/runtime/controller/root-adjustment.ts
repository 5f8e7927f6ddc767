/**
 * Moving the character's root by one step: the animation's root increment (plus the decaying
 * velocity offset of the last transition), then the constraints — adjustment towards the simulated
 * trajectory, the clamp (which pulls the simulation or the character, see clampMoves), the
 * application's collision hook, the height of the ground when there is one — and one commit after
 * all of them.
 * Works on the controller's state block `s` (controller/state.ts).
 */
import type { ControllerOptions } from './options.js';
import { quatFromYaw, quatMultiply, quatYaw } from '../../math/quat.js';
import { SPACE_3D } from '../root-motion/spaces.js';
import { wrapAngle } from '../../math/angle.js';
import { STAND_HOLD, ADJUST_DT, ADJUST_POS_K, ADJUST_ROT_K, ADJUST_CAP, ADJUST_CAP_RISE, ROOT_POS, ROOT_ROT, ROOT_VEL_OFFSET, SIM_ACC, SIM_POS, SIM_ROT, STEP_DT } from './state.js';
import { followGround } from './root-height.js';

// Temporaries of one call, shared by every controller of a thread.
const STEP_LOCAL = new Float64Array(3);
const PROPOSED = new Float64Array(3);
const TURN = new Float64Array(4);
const INCREMENT = new Float64Array(7);
const MOVED = new Float64Array(7);

/**
 * Applies `step` (local x, y, z, yaw increment of the playing clip(s)) to the root in `s`, then the
 * constraints, then commits. `inertial`: add the root velocity offset of the last transition.
 */
export function moveRoot(s: Float64Array, o: ControllerOptions, step: Float64Array, inertial: boolean): void {
  const dt = s[STEP_DT];
  const v = STEP_LOCAL;
  v[0] = step[0] + (inertial ? s[ROOT_VEL_OFFSET] * dt : 0);
  v[1] = 0; // the root stays on the ground (y = 0, or the \`ground\`'s height); vertical root motion lives in the pose
  v[2] = step[2] + (inertial ? s[ROOT_VEL_OFFSET + 2] * dt : 0);
  const yawStep = step[3] + (inertial ? s[ROOT_VEL_OFFSET + 3] * dt : 0);
  // The increment applied to the root transform [ROOT_POS 3 | ROOT_ROT 4] (the 3D root-motion
  // space's compose, as applyRootDeltaLocal): proposed position = root + rootRot·v, rotation =
  // rootRot·turn. The position is committed below, after the constraints; the rotation now.
  INCREMENT[0] = v[0]; INCREMENT[1] = v[1]; INCREMENT[2] = v[2];
  quatFromYaw(INCREMENT, 3, yawStep);
  SPACE_3D.compose(MOVED, 0, s, ROOT_POS, INCREMENT, 0);
  const p = PROPOSED;
  p[0] = MOVED[0]; p[1] = s[ROOT_POS + 1]; p[2] = MOVED[2];
  for (let k = 0; k < 4; k++) s[ROOT_ROT + k] = MOVED[3 + k];
  const moved = Math.sqrt(v[0] * v[0] + v[2] * v[2]);

  // Adjustment towards the simulation, limited by how far the animation itself moved this step
  // so that a standing character is never dragged (no visible sliding).
  if (dt !== s[ADJUST_DT]) {
    s[ADJUST_DT] = dt;
    s[ADJUST_POS_K] = o.adjustPositionHalfLife > 0 ? 1 - Math.exp(-Math.LN2 * dt / o.adjustPositionHalfLife) : 0;
    s[ADJUST_ROT_K] = o.adjustRotationHalfLife > 0 ? 1 - Math.exp(-Math.LN2 * dt / o.adjustRotationHalfLife) : 0;
  }
  if (dt > 0 && o.adjustPositionHalfLife > 0) {
    const k = s[ADJUST_POS_K];
    let ax = (s[SIM_POS] - p[0]) * k, az = (s[SIM_POS + 2] - p[2]) * k;
    // The adjustment's limit, the animation's motion this step (as a speed, m/s), grows by no more
    // in a step than the captures' own body ever changes its velocity in a frame, or than the
    // requested motion (the simulation) changes its own this step. At a transition from a slow clip
    // to a run the limit jumped with the run's speed, and the lag built up while slow was closed at
    // the run's speed from the first step: the whole body jumped (the root 0.2 → 5.3 m/s and the
    // hips 0.2 → 2.0 m/s in one step, the real set's wander at 144 Hz). It falls at once: a
    // character whose animation stops is not dragged on.
    let capSpeed = (o.adjustMaxRatio * moved) / dt;
    const requested = Math.sqrt(s[SIM_ACC] * s[SIM_ACC] + s[SIM_ACC + 2] * s[SIM_ACC + 2]) * dt;
    const most = s[ADJUST_CAP] + (requested > s[ADJUST_CAP_RISE] ? requested : s[ADJUST_CAP_RISE]);
    if (capSpeed > most) capSpeed = most;
    s[ADJUST_CAP] = capSpeed;
    const len = Math.sqrt(ax * ax + az * az), cap = capSpeed * dt;
    if (len > cap && len > 0) { ax *= cap / len; az *= cap / len; }
    p[0] += ax; p[2] += az;
  }
  const simYaw = quatYaw(s, SIM_ROT);
  // Both rotations are about +Y only: the root's yaw after the turn below is its yaw plus the turn.
  let rootYaw = quatYaw(s, ROOT_ROT);
  if (dt > 0 && o.adjustRotationHalfLife > 0) {
    const k = s[ADJUST_ROT_K];
    const diff = wrapAngle(simYaw - rootYaw);
    const cap = o.adjustMaxRatio * Math.abs(yawStep) + o.adjustMaxRatio * moved; // turn while moving or turning
    const turn = Math.max(-cap, Math.min(cap, diff * k));
    quatFromYaw(TURN, 0, turn);
    quatMultiply(s, ROOT_ROT, TURN, 0, s, ROOT_ROT);
    rootYaw += turn;
  }
  // Clamp: never let the character fall further than clampDistance / clampAngle behind the simulation.
  // 'simulation' moves the simulation to within the clamp of the character (planted feet stay
  // planted); 'character' moves the character to within the clamp of the simulation (it slides).
  const gx = p[0] - s[SIM_POS], gz = p[2] - s[SIM_POS + 2];
  const gap = Math.sqrt(gx * gx + gz * gz);
  const angGap = wrapAngle(rootYaw - simYaw);
  // A character held standing is never dragged: the simulation gives way.
  if (o.clampMoves === 'simulation' || s[STAND_HOLD] !== 0) {
    if (gap > o.clampDistance) { s[SIM_POS] = p[0] - gx * (o.clampDistance / gap); s[SIM_POS + 2] = p[2] - gz * (o.clampDistance / gap); }
    if (Math.abs(angGap) > o.clampAngle) quatFromYaw(s, SIM_ROT, rootYaw - Math.sign(angGap) * o.clampAngle);
  } else {
    if (gap > o.clampDistance) { p[0] = s[SIM_POS] + gx * (o.clampDistance / gap); p[2] = s[SIM_POS + 2] + gz * (o.clampDistance / gap); }
    if (Math.abs(angGap) > o.clampAngle) quatFromYaw(s, ROOT_ROT, simYaw + Math.sign(angGap) * o.clampAngle);
  }
  if (o.constrain) o.constrain(p);
  // The height comes from the ground under the new position (never run on flat ground: y stays 0).
  if (o.ground !== null || s[ROOT_POS + 1] !== 0) followGround(s, o, p);
  // Commit once, after every constraint.
  s[ROOT_POS] = p[0]; s[ROOT_POS + 1] = p[1]; s[ROOT_POS + 2] = p[2];
}
