/**
 * Standing still when asked to: the controller's answer to a stop request (docs/runtime.md,
 * "Standing"). Motion matching alone keeps a character asked to stand playing whatever frame
 * matches a still trajectory best, and the clip plays on: on captures without an idle clip (the
 * shared set has none; walks and gestures begin and end standing) a character was still moving at
 * 24 cm/s a second after the stop request, its feet at 14-19 cm/s. Once the input asks for no
 * motion and playback reaches a frame where the capture stands (the root still, both feet on the
 * ground), playback comes to rest on that frame (its rate eased to 0) and stays there, searching
 * no more, until the input asks for motion again (or a new facing).
 */
import type { Database } from '../../database/database.js';
import { databaseRuntime } from '../database-runtime.js';
import { CONTACT_LEFT, CONTACT_RIGHT } from '../../features/contacts.js';
import { HOLD_RATE, HOLD_RATE_VEL, SIM_VEL, STAND_HOLD, STEP_DT } from './state.js';

/** A requested speed below this (m/s) asks the character to stand, once the simulated trajectory moves slower than STAND_SETTLED_SPEED (m/s). */
export const STAND_REQUEST_SPEED = 0.05;
export const STAND_SETTLED_SPEED = 0.5;
/** A frame stands when its root moves slower than this (m/s) and turns slower than STANDING_YAW_RATE (rad/s). */
export const STANDING_ROOT_SPEED = 0.15;
export const STANDING_YAW_RATE = 0.3;
/** Half-life of the play rate's ease to rest on a standing frame and back (s). */
export const HOLD_HALF_LIFE = 0.08;

const cache = new WeakMap<Database, Uint8Array>();

/** 1 for every frame where the capture stands: the root still, both feet labelled in contact (cached per database). */
export function standingFrames(db: Database): Uint8Array {
  let s = cache.get(db);
  if (s) return s;
  const rt = databaseRuntime(db), N = db.frameCount, both = CONTACT_LEFT | CONTACT_RIGHT;
  s = new Uint8Array(N);
  for (let f = 0; f < N; f++) {
    const vx = rt.rootVelocity[3 * f], vz = rt.rootVelocity[3 * f + 2];
    s[f] = vx * vx + vz * vz < STANDING_ROOT_SPEED * STANDING_ROOT_SPEED && Math.abs(rt.rootYawRate[f]) < STANDING_YAW_RATE && (db.contacts[f] & both) === both ? 1 : 0;
  }
  cache.set(db, s);
  return s;
}

/**
 * Whether the simulated trajectory has (nearly) come to rest: a stop request asks the search for a
 * standing pose from then on, not before; the trajectory on the way there is the walk's to follow
 * (asked at once, the character stood within 0.2 s, half a metre short of where the simulation
 * stopped).
 */
export function simulationSettled(s: Float64Array): boolean {
  const vx = s[SIM_VEL], vz = s[SIM_VEL + 2];
  return vx * vx + vz * vz < STAND_SETTLED_SPEED * STAND_SETTLED_SPEED;
}

/**
 * Moves the play rate's hold factor (controller state HOLD_RATE) over the step towards 0 while
 * held on a standing frame, towards 1 otherwise: a critically damped spring, so that the pose comes
 * to rest and starts again without a jump in its joints' velocities.
 */
export function stepHoldRate(s: Float64Array): void {
  const target = s[STAND_HOLD] !== 0 ? 0 : 1, dt = s[STEP_DT];
  if (s[HOLD_RATE] === target && s[HOLD_RATE_VEL] === 0) return;
  const y = (2 * Math.LN2) / HOLD_HALF_LIFE, e = Math.exp(-y * dt);
  const x = s[HOLD_RATE] - target, j = s[HOLD_RATE_VEL] + x * y;
  const next = target + e * (x + j * dt), vel = e * (s[HOLD_RATE_VEL] - j * y * dt);
  if (Math.abs(next - target) < 1e-4 && Math.abs(vel) < 1e-3) { s[HOLD_RATE] = target; s[HOLD_RATE_VEL] = 0; return; }
  s[HOLD_RATE] = Math.min(1, Math.max(0, next));
  s[HOLD_RATE_VEL] = vel;
}
