/**
 * When a character's pose is updated (levels of detail, docs/lod.md): every step without them; a
 * level updating it every LOD_POSE_EVERY steps gathers the time between updates; an unseen
 * character's pose waits until it is seen (LOD_UNSEEN, LOD_POSE_HELD). Playback, root motion, the
 * trajectory and searches step as always.
 * Works on the controller's state block `s` (controller/state.ts).
 */
import { LOD_POSE_COUNT, LOD_POSE_DT, LOD_POSE_EVERY, LOD_POSE_HELD, LOD_UNSEEN, POSE_SECONDS, STEP_DT } from './state.js';

/**
 * Seconds the pose moves on by in this step of S[STEP_DT] seconds, or -1 when it waits, into
 * S[POSE_SECONDS] (through the block: a number passed to or returned from a call V8 does not
 * inline is a heap box, per character-step). Without levels of detail: dt, exactly as given. A
 * level updating the pose every LOD_POSE_EVERY steps gathers the time between updates (a
 * transition in this step, `transitioned`, updates at once); an unseen character's pose waits until
 * it is seen and then catches up with everything gathered (`held`: it waited).
 */
export function schedulePose(S: Float64Array, held: boolean, transitioned: boolean): void {
  const dt = S[STEP_DT];
  if (S[LOD_UNSEEN] !== 0) {
    S[LOD_POSE_DT] += dt;
    S[LOD_POSE_HELD] = 1;
    S[POSE_SECONDS] = -1;
    return;
  }
  if (S[LOD_POSE_EVERY] > 1) {
    S[LOD_POSE_DT] += dt;
    if (!(++S[LOD_POSE_COUNT] >= S[LOD_POSE_EVERY] || transitioned || held)) { S[POSE_SECONDS] = -1; return; }
  } else if (!held) {
    S[POSE_SECONDS] = dt;
    return;
  } else {
    S[LOD_POSE_DT] += dt;
  }
  S[POSE_SECONDS] = S[LOD_POSE_DT];
  S[LOD_POSE_DT] = 0; S[LOD_POSE_COUNT] = 0;
}
