/**
 * Playback of the database by one controller: time warping, crossfade layers and the root-motion
 * increment each step produces. Every function works on the controller's state block `s` (see
 * controller/state.ts); the step's dt is read from s[STEP_DT].
 */
import type { DatabaseRuntime } from '../database-runtime.js';
import type { ControllerOptions } from './options.js';
import { appendBlendedPieces } from '../root-motion/tracks.js';
import { DESIRED_VEL, FRAME_FRACTION, HOLD_RATE, LAYER_FRACTION, LAYER_FRAME, LAYER_WEIGHT, MAX_LAYERS, PLAY_RATE, STAND_HOLD, STEP_DT, WARP_RATE, WARP_RATE_VEL } from './state.js';
import { strideSpeeds } from './stride-speed.js';
import { stepHoldRate } from './standing.js';
import { decaySpringUpdateWith } from '../../math/spring.js';

// Temporaries of one call, shared by every controller of a thread.
const LAYER_VELOCITY = new Float64Array(4 * MAX_LAYERS);
const LAYER_MEAN = new Float64Array(MAX_LAYERS);

/** Half-life of the time warp's play rate following its target (s): a stride's worth of change, not a frame's. */
export const WARP_HALF_LIFE = 0.15;
/** updatePlayRate's half-life and dt for its spring. */
const WARP_ARGS = new Float64Array(2);

/**
 * Time warping: the play rate follows (a critically damped spring, WARP_HALF_LIFE) the requested
 * speed over the clip's speed over a stride (stride-speed.ts), within [timeWarpMin, timeWarpMax];
 * 1 where either speed is a standstill. Off (both bounds 1), the rate is 1.
 */
export function updatePlayRate(s: Float64Array, rt: DatabaseRuntime, o: ControllerOptions, frame: number): void {
  if (o.timeWarpMax > o.timeWarpMin || o.timeWarpMin !== 1) {
    const clipSpeed = strideSpeeds(rt.db)[frame];
    const want = Math.sqrt(s[DESIRED_VEL] * s[DESIRED_VEL] + s[DESIRED_VEL + 2] * s[DESIRED_VEL + 2]);
    const target = Math.min(o.timeWarpMax, Math.max(o.timeWarpMin, clipSpeed > 0.2 && want > 0.2 ? want / clipSpeed : 1));
    s[WARP_RATE] -= target;
    // = decaySpringUpdate(s, WARP_RATE, s, WARP_RATE_VEL, WARP_HALF_LIFE, s[STEP_DT], 1), the numbers through an array
    WARP_ARGS[0] = WARP_HALF_LIFE; WARP_ARGS[1] = s[STEP_DT];
    decaySpringUpdateWith(s, WARP_RATE, s, WARP_RATE_VEL, WARP_ARGS, 0, 1);
    s[WARP_RATE] = Math.min(o.timeWarpMax, Math.max(o.timeWarpMin, s[WARP_RATE] + target));
    s[PLAY_RATE] = s[WARP_RATE];
  } else {
    s[PLAY_RATE] = 1;
  }
}

/** True when layer frame f is the last frame of a clip that does not loop: playback holds there until a search moves on. */
function heldAtEnd(rt: DatabaseRuntime, f: number): boolean {
  const clip = rt.db.clips[rt.clipOf[f]];
  return !clip.loop && f >= clip.start + clip.count - 1;
}

/** The frame after f in its clip (a looping clip's last frame flows into its first). */
function nextFrame(rt: DatabaseRuntime, f: number): number {
  const clip = rt.db.clips[rt.clipOf[f]];
  return f >= clip.start + clip.count - 1 ? clip.start : f + 1;
}

/**
 * Advances layer i by the step's clip time (dt times the play rate) and writes its root increment
 * (a yaw delta: local x, y, z, yaw) to out: the per-frame root velocity appended piece by piece
 * (root-motion/tracks.ts), so it accumulates across frame boundaries and loop wraps instead of
 * differencing positions (the root-motion contract, docs/root-motion.md).
 */
export function advanceLayer(s: Float64Array, rt: DatabaseRuntime, i: number, out: Float64Array): void {
  const fps = rt.fps, V = rt.rootVelocity, W = rt.rootYawRate;
  let f = s[LAYER_FRAME + i] | 0, frac = s[LAYER_FRACTION + i];
  let remaining = s[STEP_DT] * s[PLAY_RATE] * fps; // in frames
  out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 0;
  while (remaining > 1e-12) {
    if (heldAtEnd(rt, f)) { frac = 0; break; }
    const take = Math.min(remaining, 1 - frac);
    // = appendVelocityPiece(out, 0, V[3f], V[3f + 1], V[3f + 2], W[f], take / fps), written out: five
    // numbers passed to a call V8 does not inline are five heap boxes (64 bytes per agent-step of a
    // crowd whenever the caller's inlining budget ran out before this call).
    const seconds = take / fps, yaw = out[3], vx = V[3 * f], vy = V[3 * f + 1], vz = V[3 * f + 2];
    const c = yaw === 0 ? 1 : Math.cos(yaw), sn = yaw === 0 ? 0 : Math.sin(yaw);
    out[0] += (c * vx + sn * vz) * seconds;
    out[1] += vy * seconds;
    out[2] += (-sn * vx + c * vz) * seconds;
    out[3] = yaw + W[f] * seconds;
    frac += take;
    remaining -= take;
    if (frac >= 1 - 1e-12) { frac = 0; f = nextFrame(rt, f); }
  }
  s[LAYER_FRAME + i] = f;
  s[LAYER_FRACTION + i] = frac;
}

/**
 * Crossfade over one step: the newest of `layers` layers fades in and the others out (each weight
 * moves by dt / crossfadeTime, within [0, 1]) while every layer plays on. The blended root increment
 * goes to `out`. The step is split wherever a layer crosses a frame boundary (its velocity changes)
 * or a weight reaches 0 or 1 (its slope changes); over each piece velocities are constant and
 * weights linear, so blending the pieces' displacements with the weights' means over the piece is
 * exact (the contract's "integrate with sub-steps"; one mean weight for the whole step would
 * under- or over-count a layer that speeds up while its weight changes). Retires layers that have
 * faded out and returns the new layer count.
 */
export function advanceCrossfade(s: Float64Array, rt: DatabaseRuntime, o: ControllerOptions, layers: number, out: Float64Array): number {
  const fps = rt.fps, V = rt.rootVelocity, W = rt.rootYawRate;
  const playRate = s[PLAY_RATE], framesPerSecond = fps * playRate;
  const fade = 1 / Math.max(o.crossfadeTime, 1e-6);
  const newest = layers - 1;
  out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 0;
  let remaining = s[STEP_DT];
  while (remaining > 1e-12) {
    // The piece ends at the step's end, the next frame boundary of a playing layer, or a weight limit.
    let piece = remaining;
    for (let i = 0; i < layers; i++) {
      const f = s[LAYER_FRAME + i] | 0;
      if (!heldAtEnd(rt, f) && framesPerSecond > 0) piece = Math.min(piece, (1 - s[LAYER_FRACTION + i]) / framesPerSecond);
      const w = s[LAYER_WEIGHT + i];
      if (i === newest ? w < 1 : w > 0) piece = Math.min(piece, (i === newest ? 1 - w : w) / fade);
    }
    for (let i = 0; i < layers; i++) {
      const f = s[LAYER_FRAME + i] | 0, w0 = s[LAYER_WEIGHT + i];
      const w1 = i === newest ? Math.min(1, w0 + fade * piece) : Math.max(0, w0 - fade * piece);
      s[LAYER_WEIGHT + i] = w1;
      LAYER_MEAN[i] = 0.5 * (w0 + w1);
      const held = heldAtEnd(rt, f);
      LAYER_VELOCITY[4 * i] = held ? 0 : V[3 * f]; LAYER_VELOCITY[4 * i + 1] = held ? 0 : V[3 * f + 1];
      LAYER_VELOCITY[4 * i + 2] = held ? 0 : V[3 * f + 2]; LAYER_VELOCITY[4 * i + 3] = held ? 0 : W[f];
      if (held) { s[LAYER_FRACTION + i] = 0; continue; }
      const frac = s[LAYER_FRACTION + i] + piece * framesPerSecond;
      if (frac >= 1 - 1e-12) { s[LAYER_FRACTION + i] = 0; s[LAYER_FRAME + i] = nextFrame(rt, f); }
      else s[LAYER_FRACTION + i] = frac;
    }
    appendBlendedPieces(out, 0, layers, LAYER_VELOCITY, LAYER_MEAN, piece * playRate);
    remaining -= piece;
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

/**
 * Moves playback on by the step's dt (time-warped; eased to rest while held standing) from the
 * playing `frame` with `layers` crossfade layers, and writes the root-motion increment of the
 * playing clip(s) over that interval, in the root's local frame, to `step` (x, y, z, yaw). Returns
 * the layer count after it: the top layer is the playing frame (FRAME_FRACTION its fraction).
 */
export function advancePlayback(s: Float64Array, rt: DatabaseRuntime, o: ControllerOptions, frame: number, layers: number, step: Float64Array): number {
  updatePlayRate(s, rt, o, frame);
  if (s[HOLD_RATE] !== 1 || s[STAND_HOLD] !== 0) { stepHoldRate(s); s[PLAY_RATE] *= s[HOLD_RATE]; }
  if (o.blendMode === 'crossfade' && layers > 1) {
    layers = advanceCrossfade(s, rt, o, layers, step);
  } else {
    layers = 1;
    s[LAYER_WEIGHT] = 1;
    s[LAYER_FRAME] = frame; s[LAYER_FRACTION] = s[FRAME_FRACTION];
    advanceLayer(s, rt, 0, step);
  }
  s[FRAME_FRACTION] = s[LAYER_FRACTION + layers - 1];
  return layers;
}
