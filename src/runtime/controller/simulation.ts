/**
 * The simulated trajectory's step: the input read into the desired velocity and facing (the legs'
 * facing under orientation warping, orientation-warp.ts), the stand request (standing.ts), and the
 * springs of the simulation moved towards them. The search follows the simulation; the character
 * is pulled towards it (root-adjustment.ts).
 * Works on the controller's state block `s` (controller/state.ts); the step's dt is read from
 * s[STEP_DT].
 */
import type { Database } from '../../database/database.js';
import type { ControllerInput, ControllerOptions } from './options.js';
import { springCharacterUpdateWith, springRotationUpdateWith } from '../../math/spring.js';
import {
  DESIRED_ROT, DESIRED_ROT_YAW, DESIRED_VEL, LAST_DESIRED_FACING, LAST_DESIRED_VX, LAST_DESIRED_VZ,
  SIM_ACC, SIM_ANGVEL, SIM_POS, SIM_ROT, SIM_VEL, STAND_HOLD, STAND_REQUEST, STEP_DT, UPPER_TWIST_TARGET,
} from './state.js';
import { locomotionFacing } from './orientation-warp.js';
import { STAND_REQUEST_SPEED, simulationSettled } from './standing.js';

const TWO_PI = 2 * Math.PI;
/** The springs' half-life and dt, passed in an array (numbers passed to a call that is not inlined are heap boxes). */
const SPRING_ARGS = new Float64Array(2);

/**
 * Takes `input` (validated) into the state block and steps the simulation over s[STEP_DT]. True
 * when the input asks for a search at once: it changed sharply, or it let go of a standing hold.
 */
export function stepSimulation(s: Float64Array, db: Database, o: ControllerOptions, input: ControllerInput): boolean {
  const dt = s[STEP_DT];
  let searchNow = false;
  const speed = Math.sqrt(input.velocityX * input.velocityX + input.velocityZ * input.velocityZ);
  let facing = Number.isNaN(input.facing) ? (speed > 0.1 ? Math.atan2(input.velocityX, input.velocityZ) : s[LAST_DESIRED_FACING]) : input.facing;
  s[UPPER_TWIST_TARGET] = 0;
  if (!Number.isNaN(input.facing) && speed > 0.3 && o.orientationWarp > 0) facing = locomotionFacing(s, db, o, facing, Math.atan2(input.velocityX, input.velocityZ));
  // Sharp input changes trigger a search at once rather than at the next tick.
  const dvx = input.velocityX - s[LAST_DESIRED_VX], dvz = input.velocityZ - s[LAST_DESIRED_VZ];
  const dv = Math.sqrt(dvx * dvx + dvz * dvz);
  // |wrapAngle(facing − last)|, written out (a number returned from a call is a heap box)
  const turn = facing - s[LAST_DESIRED_FACING], df = Math.abs(turn - TWO_PI * Math.round(turn / TWO_PI));
  if (dv > o.sharpVelocityChange || df > o.sharpFacingChange) searchNow = true;
  // Standing (standing.ts): asked for no motion, and held while it lasts; a request to move or to
  // face elsewhere lets go and searches at once.
  s[STAND_REQUEST] = speed < STAND_REQUEST_SPEED && simulationSettled(s) ? 1 : 0;
  if (s[STAND_HOLD] !== 0 && (s[STAND_REQUEST] === 0 || df > o.sharpFacingChange)) { s[STAND_HOLD] = 0; searchNow = true; }
  s[LAST_DESIRED_VX] = input.velocityX; s[LAST_DESIRED_VZ] = input.velocityZ; s[LAST_DESIRED_FACING] = facing;

  // Springs towards the desired velocity and facing.
  s[DESIRED_VEL] = input.velocityX; s[DESIRED_VEL + 1] = 0; s[DESIRED_VEL + 2] = input.velocityZ;
  // The desired facing changes only with the input: its quaternion is kept until then.
  if (facing !== s[DESIRED_ROT_YAW]) {
    s[DESIRED_ROT_YAW] = facing;
    // = quatFromYaw(s, DESIRED_ROT, facing), written out: the facing passed to a call that is not inlined is a heap box.
    s[DESIRED_ROT] = 0; s[DESIRED_ROT + 1] = Math.sin(0.5 * facing); s[DESIRED_ROT + 2] = 0; s[DESIRED_ROT + 3] = Math.cos(0.5 * facing);
  }
  if (dt > 0) {
    SPRING_ARGS[0] = o.trajectoryHalfLife; SPRING_ARGS[1] = dt;
    springCharacterUpdateWith(s, SIM_POS, s, SIM_VEL, s, SIM_ACC, s, DESIRED_VEL, SPRING_ARGS, 0, 3);
    SPRING_ARGS[0] = o.facingHalfLife;
    springRotationUpdateWith(s, SIM_ROT, s, SIM_ANGVEL, s, DESIRED_ROT, SPRING_ARGS, 0);
  }
  return searchNow;
}
