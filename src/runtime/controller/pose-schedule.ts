/**
 * When a character's pose is updated (levels of detail, docs/lod.md): every step without them; a
 * level updating it every LOD_POSE_EVERY steps gathers the time between updates; an unseen
 * character's pose waits until it is seen (LOD_UNSEEN, LOD_POSE_HELD). Playback, root motion, the
 * trajectory and searches step as always.
 * Works on the controller's state block `s` (controller/state.ts).
 */
import { LOD_POSE_COUNT, LOD_POSE_DT, LOD_POSE_EVERY, LOD_POSE_HELD, LOD_UNSEEN } from './state.js';

/**
 * Seconds the pose moves on by in this step, or -1 when it waits. Without levels of detail: dt,
 * exactly as given. A level updating the pose every LOD_POSE_EVERY steps gathers the time between
 * updates (a transition in this step, `transitioned`, updates at once); an unseen character's pose
 * waits until it is seen and then catches up with everything gathered (`held`: it waited).
 */
export function schedulePose(S: Float64Array, dt: number, held: boolean, transitioned: boolean): number {
  if (S[LOD_UNSEEN] !== 0) {
    S[LOD_POSE_DT] += dt;
    S[LOD_POSE_HELD] = 1;
    return -1;
  }
  if (S[LOD_POSE_EVERY] > 1) {
    S[LOD_POSE_DT] += dt;
    if (!(++S[LOD_POSE_COUNT] >= S[LOD_POSE_EVERY] || transitioned || held)) return -1;
  } else if (!held) {
    return dt;
  } else {
    S[LOD_POSE_DT] += dt;
  }
  const gathered = S[LOD_POSE_DT];
  S[LOD_POSE_DT] = 0; S[LOD_POSE_COUNT] = 0;
  return gathered;
}
