/**
 * Orientation warping (ControllerOptions.orientationWarp): asked to face one way while travelling
 * another the database has no motion for, the legs take the facing of the nearest motion it has
 * (travel-coverage.ts) and the upper body turns the rest of the way (upper-body-twist.ts), the turn
 * springing towards its target across steps.
 * Works on the controller's state block `s` (controller/state.ts).
 */
import type { Database } from '../../database/database.js';
import type { ControllerOptions } from './options.js';
import { decaySpringUpdateWith } from '../../math/spring.js';
import { wrapAngle } from '../../math/angle.js';
import { STEP_DT, UPPER_TWIST, UPPER_TWIST_TARGET, UPPER_TWIST_VEL } from './state.js';
import { travelCoverage, nearestCoveredTravel } from './travel-coverage.js';
import { twistUpperBody, upperBodyRig, type TwistHost } from './upper-body-twist.js';

/**
 * The facing the legs take for a requested `facing` while travelling along `travel` (world yaws):
 * the facing itself when the database has motion that travels that way relative to its facing;
 * else the facing from which the nearest motion it has travels along `travel` (a forward walk
 * heading sideways for a sidestep the data lacks), with the upper body to turn the rest of the
 * way, up to orientationWarp (UPPER_TWIST_TARGET). Tracking the requested path comes first: the
 * alternative, a clip that neither faces nor travels as asked, leaves the character behind its
 * trajectory and its planted feet dragged.
 */
export function locomotionFacing(s: Float64Array, db: Database, o: ControllerOptions, facing: number, travel: number): number {
  const beta = wrapAngle(travel - facing);
  const covered = nearestCoveredTravel(travelCoverage(db), beta);
  if (Number.isNaN(covered) || covered === beta) { s[UPPER_TWIST_TARGET] = 0; return facing; }
  const legs = travel - covered, max = o.orientationWarp;
  s[UPPER_TWIST_TARGET] = Math.max(-max, Math.min(max, wrapAngle(facing - legs)));
  return legs;
}

/** turnUpperBody's half-life and dt for its spring. */
const TWIST_ARGS = new Float64Array(2);

/**
 * The upper body's turn: a critically damped spring (the facing's half-life) moves the turn
 * towards its target, continuous in angle and rate when the target changes; the pose of `host` is
 * edited only while the turn is not (close to) zero.
 */
export function turnUpperBody(host: TwistHost, S: Float64Array, o: ControllerOptions, db: Database): void {
  const target = S[UPPER_TWIST_TARGET];
  if (target === 0 && S[UPPER_TWIST] === 0 && S[UPPER_TWIST_VEL] === 0) return;
  S[UPPER_TWIST] -= target;
  // = decaySpringUpdate(S, UPPER_TWIST, S, UPPER_TWIST_VEL, o.facingHalfLife, S[STEP_DT], 1), the numbers through an array
  TWIST_ARGS[0] = o.facingHalfLife; TWIST_ARGS[1] = S[STEP_DT];
  decaySpringUpdateWith(S, UPPER_TWIST, S, UPPER_TWIST_VEL, TWIST_ARGS, 0, 1);
  S[UPPER_TWIST] += target;
  if (Math.abs(S[UPPER_TWIST]) < 1e-6 && Math.abs(S[UPPER_TWIST_VEL]) < 1e-6) { S[UPPER_TWIST] = 0; S[UPPER_TWIST_VEL] = 0; return; }
  twistUpperBody(host, db.skeleton.parents, upperBodyRig(db), S[UPPER_TWIST]);
}
