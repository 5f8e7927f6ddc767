import type { Clip } from './clip.js';
import type { Buf } from '../math/quat.js';
import { quatSlerp } from '../math/quat.js';
import { composeJoint } from './forward-kinematics.js';

export type TimeMode = 'clamp' | 'loop';

/**
 * Frame pair and blend factor for time t: pose(t) = lerp(frame i0, frame i1, alpha).
 * Looping clips treat the last frame as flowing into the first, so the cycle is frameCount / fps long.
 */
export function frameBlendAt(frameCount: number, fps: number, t: number, mode: TimeMode, out: { i0: number; i1: number; alpha: number }): void {
  if (!Number.isFinite(t)) throw new RangeError(`sample time must be finite, got ${t}`);
  if (frameCount <= 1) { out.i0 = 0; out.i1 = 0; out.alpha = 0; return; }
  let f = t * fps;
  if (mode === 'loop') {
    f = f - Math.floor(f / frameCount) * frameCount;
    const i0 = Math.min(Math.floor(f), frameCount - 1);
    out.i0 = i0; out.i1 = i0 + 1 === frameCount ? 0 : i0 + 1; out.alpha = f - i0;
    return;
  }
  if (f <= 0) { out.i0 = 0; out.i1 = 0; out.alpha = 0; return; }
  if (f >= frameCount - 1) { out.i0 = frameCount - 1; out.i1 = frameCount - 1; out.alpha = 0; return; }
  const i0 = Math.floor(f);
  out.i0 = i0; out.i1 = i0 + 1; out.alpha = f - i0;
}

const scratchBlend = { i0: 0, i1: 0, alpha: 0 };

/**
 * Local pose of `clip` at time `t` (seconds): slerped rotations, lerped translations, written into
 * outRot (J*4) and outPos (J*3).
 */
export function sampleClipPose(clip: Clip, t: number, mode: TimeMode, outRot: Buf, outPos: Buf): void {
  const J = clip.rotations.length / (4 * clip.frameCount);
  frameBlendAt(clip.frameCount, clip.fps, t, mode, scratchBlend);
  samplePoseBetween(clip.rotations, clip.translations, J, scratchBlend.i0, scratchBlend.i1, scratchBlend.alpha, outRot, outPos);
}

/** Blend frames i0 and i1 of frame-major pose arrays (J joints) by alpha. */
export function samplePoseBetween(rot: Buf, pos: Buf, J: number, i0: number, i1: number, alpha: number, outRot: Buf, outPos: Buf): void {
  const r0 = i0 * J * 4, r1 = i1 * J * 4, p0 = i0 * J * 3, p1 = i1 * J * 3;
  for (let j = 0; j < J; j++) {
    quatSlerp(outRot, 4 * j, rot, r0 + 4 * j, rot, r1 + 4 * j, alpha);
    const a = p0 + 3 * j, b = p1 + 3 * j;
    outPos[3 * j] = pos[a] + (pos[b] - pos[a]) * alpha;
    outPos[3 * j + 1] = pos[a + 1] + (pos[b + 1] - pos[a + 1]) * alpha;
    outPos[3 * j + 2] = pos[a + 2] + (pos[b + 2] - pos[a + 2]) * alpha;
  }
}

/**
 * World transforms from local ones. Joints are parents-first, so one forward pass suffices.
 * Local arrays are read at element offsets lr (rotations) and lp (translations), so a frame of a
 * whole clip can be used in place.
 */
export function forwardKinematics(
  parents: Int32Array, localRot: Buf, lr: number, localPos: Buf, lp: number,
  worldRot: Buf, worldPos: Buf,
): void {
  const J = parents.length;
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    if (p < 0) {
      worldRot[4 * j] = localRot[lr + 4 * j]; worldRot[4 * j + 1] = localRot[lr + 4 * j + 1];
      worldRot[4 * j + 2] = localRot[lr + 4 * j + 2]; worldRot[4 * j + 3] = localRot[lr + 4 * j + 3];
      worldPos[3 * j] = localPos[lp + 3 * j]; worldPos[3 * j + 1] = localPos[lp + 3 * j + 1]; worldPos[3 * j + 2] = localPos[lp + 3 * j + 2];
      continue;
    }
    composeJoint(worldPos, worldRot, j, worldPos, 3 * p, worldRot, 4 * p, localPos, lp + 3 * j, localRot, lr + 4 * j);
  }
}

/**
 * The joints that place `targets`: each target and every joint above it, in ascending order, which
 * is parents before children (as forwardKinematics walks them). Negative targets (a joint the rig
 * lacks) are skipped.
 */
export function jointsAbove(parents: Int32Array, targets: readonly number[]): Int32Array {
  const keep = new Uint8Array(parents.length);
  for (const t of targets) for (let j = t; j >= 0 && !keep[j]; j = parents[j]) keep[j] = 1;
  const out: number[] = [];
  for (let j = 0; j < keep.length; j++) if (keep[j]) out.push(j);
  return Int32Array.from(out);
}

/**
 * forwardKinematics for `joints` alone (jointsAbove: each with every joint above it), the same
 * numbers for those: their world transforms into worldRot / worldPos, the other entries untouched.
 */
export function forwardKinematicsOf(
  parents: Int32Array, joints: Int32Array, localRot: Buf, lr: number, localPos: Buf, lp: number,
  worldRot: Buf, worldPos: Buf,
): void {
  for (let i = 0; i < joints.length; i++) {
    const j = joints[i], p = parents[j];
    if (p < 0) {
      worldRot[4 * j] = localRot[lr + 4 * j]; worldRot[4 * j + 1] = localRot[lr + 4 * j + 1];
      worldRot[4 * j + 2] = localRot[lr + 4 * j + 2]; worldRot[4 * j + 3] = localRot[lr + 4 * j + 3];
      worldPos[3 * j] = localPos[lp + 3 * j]; worldPos[3 * j + 1] = localPos[lp + 3 * j + 1]; worldPos[3 * j + 2] = localPos[lp + 3 * j + 2];
      continue;
    }
    composeJoint(worldPos, worldRot, j, worldPos, 3 * p, worldRot, 4 * p, localPos, lp + 3 * j, localRot, lr + 4 * j);
  }
}

/** World positions of every frame of a clip-like frame-major array: out is frames*J*3. */
export function worldPositionsOfFrames(parents: Int32Array, rot: Buf, pos: Buf, frames: number, outPos: Float64Array): void {
  const J = parents.length;
  const wr = new Float64Array(4 * J);
  const wp = new Float64Array(3 * J);
  for (let f = 0; f < frames; f++) {
    forwardKinematics(parents, rot, f * J * 4, pos, f * J * 3, wr, wp);
    outPos.set(wp, f * J * 3);
  }
}

/** World rotations and positions of every frame: outRot frames*J*4, outPos frames*J*3. */
export function worldTransformsOfFrames(parents: Int32Array, rot: Buf, pos: Buf, frames: number, outRot: Float64Array, outPos: Float64Array): void {
  const J = parents.length;
  const wr = new Float64Array(4 * J);
  const wp = new Float64Array(3 * J);
  for (let f = 0; f < frames; f++) {
    forwardKinematics(parents, rot, f * J * 4, pos, f * J * 3, wr, wp);
    outRot.set(wr, f * J * 4);
    outPos.set(wp, f * J * 3);
  }
}

/**
 * Per-frame linear velocities (m/s) from a frame-major position track of `width` values per frame
 * (e.g. J*3 world positions): central differences inside, one-sided at the ends. Only columns
 * [from, to) are written (default: all).
 */
export function finiteDifferenceVelocities(track: Float64Array, width: number, frames: number, fps: number, out: Float64Array, from = 0, to = width): void {
  for (let f = 0; f < frames; f++) {
    const a = f > 0 ? f - 1 : f;
    const b = f < frames - 1 ? f + 1 : f;
    const dt = (b - a) / fps;
    for (let k = from; k < to; k++) {
      out[f * width + k] = dt > 0 ? (track[b * width + k] - track[a * width + k]) / dt : 0;
    }
  }
}

