/**
 * Playback of the database by one controller: time warping, crossfade layers and the root-motion
 * increment each step produces. Every function works on the controller's state block `s` (see
 * controller-state.ts); the step's dt is read from s[STEP_DT].
 */
import type { DatabaseRuntime } from './database-runtime.js';
import type { ControllerOptions } from './controller-options.js';
import { DESIRED_VEL, LAYER_FRACTION, LAYER_FRAME, LAYER_WEIGHT, MAX_LAYERS, PLAY_RATE, STEP_DT } from './controller-state.js';

// Temporaries of one call, shared by every controller of a thread.
const LAYER_STEP = new Float64Array(4);
const LAYER_MEAN = new Float64Array(MAX_LAYERS);

/** Time warping: the play rate nudged towards desired speed / clip speed, within [timeWarpMin, timeWarpMax]. */
export function updatePlayRate(s: Float64Array, rt: DatabaseRuntime, o: ControllerOptions, frame: number): void {
  if (o.timeWarpMax > o.timeWarpMin || o.timeWarpMin !== 1) {
    const cvx = rt.rootVelocity[3 * frame], cvz = rt.rootVelocity[3 * frame + 2];
    const clipSpeed = Math.sqrt(cvx * cvx + cvz * cvz);
    const want = Math.sqrt(s[DESIRED_VEL] * s[DESIRED_VEL] + s[DESIRED_VEL + 2] * s[DESIRED_VEL + 2]);
    const target = clipSpeed > 0.2 && want > 0.2 ? want / clipSpeed : 1;
    s[PLAY_RATE] = Math.min(o.timeWarpMax, Math.max(o.timeWarpMin, target));
  } else {
    s[PLAY_RATE] = 1;
  }
}

/**
 * Advances layer i by the step's clip time (dt times the play rate) and writes its root
 * increment (local x, y, z, yaw) to out. The increment integrates the per-frame root velocity
 * piecewise, turning as it goes, so it accumulates across frame boundaries and loop wraps
 * instead of differencing positions (the root-motion contract, docs/root-motion.md).
 */
export function advanceLayer(s: Float64Array, rt: DatabaseRuntime, i: number, out: Float64Array): void {
  const seconds = s[STEP_DT] * s[PLAY_RATE];
  const clips = rt.db.clips;
  let f = s[LAYER_FRAME + i] | 0, frac = s[LAYER_FRACTION + i];
  let remaining = seconds * rt.fps;
  let x = 0, y = 0, z = 0, yaw = 0;
  while (remaining > 1e-12) {
    const clip = clips[rt.clipOf[f]];
    const last = clip.start + clip.count - 1;
    if (f >= last && !clip.loop) { frac = 0; break; } // held on the final frame until a search moves on
    const take = Math.min(remaining, 1 - frac);
    const sec = take / rt.fps;
    // = composeYawRootDeltaLocal(acc, acc, velocity piece · sec): the piece's displacement turned
    // by the yaw accumulated so far. Most steps stay within one frame: the turn is then 0.
    const c = yaw === 0 ? 1 : Math.cos(yaw), sn = yaw === 0 ? 0 : Math.sin(yaw);
    const vx = rt.rootVelocity[3 * f], vy = rt.rootVelocity[3 * f + 1], vz = rt.rootVelocity[3 * f + 2];
    x += (c * vx + sn * vz) * sec; y += vy * sec; z += (-sn * vx + c * vz) * sec;
    yaw += rt.rootYawRate[f] * sec;
    frac += take;
    remaining -= take;
    if (frac >= 1 - 1e-12) {
      frac = 0;
      f = f >= last ? clip.start : f + 1;
    }
  }
  s[LAYER_FRAME + i] = f;
  s[LAYER_FRACTION + i] = frac;
  out[0] = x; out[1] = y; out[2] = z; out[3] = yaw;
}

/**
 * Crossfade: each of `layers` layers advances on its own (the newest fades in, the others out over
 * crossfadeTime), and their root increments are blended as displacements over the same interval
 * with each layer's mean weight across it. Writes the blended increment to `out`, retires layers
 * that have faded out and returns the new layer count.
 */
export function advanceCrossfade(s: Float64Array, rt: DatabaseRuntime, o: ControllerOptions, layers: number, out: Float64Array): number {
  const rate = s[STEP_DT] / Math.max(o.crossfadeTime, 1e-6);
  const newest = layers - 1;
  const mean = LAYER_MEAN;
  let total = 0;
  for (let i = 0; i < layers; i++) {
    const w0 = s[LAYER_WEIGHT + i];
    const w1 = i === newest ? Math.min(1, w0 + rate) : Math.max(0, w0 - rate);
    s[LAYER_WEIGHT + i] = w1;
    mean[i] = 0.5 * (w0 + w1);
    total += mean[i];
  }
  out.fill(0);
  for (let i = 0; i < layers; i++) {
    advanceLayer(s, rt, i, LAYER_STEP);
    const w = total > 0 ? mean[i] / total : 0;
    for (let d = 0; d < 4; d++) out[d] += w * LAYER_STEP[d];
  }
  let k = 0;
  for (let i = 0; i < layers; i++) {
    if (s[LAYER_WEIGHT + i] <= 0 && i !== newest) continue;
    copyLayer(s, k++, i);
  }
  return k;
}

/** Starts a new crossfade layer at `frame` with weight 0 (dropping the faintest when full); returns the new count. */
export function pushLayer(s: Float64Array, layers: number, frame: number): number {
  if (layers === MAX_LAYERS) {
    let k = 0;
    for (let i = 1; i < layers; i++) if (s[LAYER_WEIGHT + i] < s[LAYER_WEIGHT + k]) k = i;
    for (let i = k; i < layers - 1; i++) copyLayer(s, i, i + 1);
    layers--;
  }
  const i = layers++;
  s[LAYER_FRAME + i] = frame; s[LAYER_FRACTION + i] = 0; s[LAYER_WEIGHT + i] = 0;
  return layers;
}

function copyLayer(s: Float64Array, to: number, from: number): void {
  s[LAYER_FRAME + to] = s[LAYER_FRAME + from]; s[LAYER_FRACTION + to] = s[LAYER_FRACTION + from]; s[LAYER_WEIGHT + to] = s[LAYER_WEIGHT + from];
}
