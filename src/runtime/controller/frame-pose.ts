/**
 * Poses read from the database at run time: the root-relative local pose at a frame plus a
 * fraction towards the next one, and the blend of several crossfade layers.
 */
import type { PoseBuffers } from '../inertialization/inertialize.js';
import { IDENTITY_ROTATION, SOURCE_ROOT_RELATIVE, ZERO_TRANSLATION, framePoseAt, type DatabaseRuntime } from '../database-runtime.js';
import { quatNormalize } from '../../math/quat.js';
import { LAYER_FRACTION, LAYER_FRAME, LAYER_WEIGHT } from './state.js';

/** A local pose with velocities, in float64 (positions and velocities J*3, rotations J*4). */
export interface Pose64 extends PoseBuffers {
  positions: Float64Array;
  rotations: Float64Array;
  velocities: Float64Array;
  angularVelocities: Float64Array;
}

function createPose64(joints: number): Pose64 {
  return {
    positions: new Float64Array(joints * 3), rotations: new Float64Array(joints * 4),
    velocities: new Float64Array(joints * 3), angularVelocities: new Float64Array(joints * 3),
  };
}

/**
 * The playing and destination poses are scratch: a step fills and consumes them before it returns,
 * so all controllers of a thread share one pair per skeleton size (it stays in cache across a crowd).
 */
const poseScratchByJoints = new Map<number, { playing: Pose64; destination: Pose64 }>();

export function poseScratch(joints: number): { playing: Pose64; destination: Pose64 } {
  let s = poseScratchByJoints.get(joints);
  if (!s) {
    s = { playing: createPose64(joints), destination: createPose64(joints) };
    poseScratchByJoints.set(joints, s);
  }
  return s;
}

/**
 * Root-relative local pose at frame f + fraction (towards the next frame of the same clip; a
 * looping clip's last frame flows into its first), and its velocities when `withVelocities` (only
 * transitions need them).
 */
export function sampleFramePose(rt: DatabaseRuntime, f: number, fraction: number, out: Pose64, withVelocities: boolean): void {
  const J = rt.joints;
  const or = out.rotations, op = out.positions;
  if (fraction === 0) {
    // On a frame exactly (a 30 Hz step on 30 fps data): a copy.
    framePoseAt(rt, f, or, 0, op, 0);
    if (withVelocities) {
      const V = rt.velocities, VJ = rt.velocityJoints, n = VJ.length, W = rt.angularVelocities, ov = out.velocities, p0 = f * J * 3;
      ov.fill(0);
      for (let i = 0; i < n; i++) { const o = 3 * VJ[i], v = (f * n + i) * 3; ov[o] = V[v]; ov[o + 1] = V[v + 1]; ov[o + 2] = V[v + 2]; }
      for (let i = 0; i < 3 * J; i++) out.angularVelocities[i] = W[p0 + i];
    }
    return;
  }
  const clip = rt.db.clips[rt.clipOf[f]];
  const g = f + 1 < clip.start + clip.count ? f + 1 : clip.loop ? clip.start : f;
  const a = fraction, b = 1 - fraction;
  // Every joint from the database's own pose (the loop of a pose stored whole), then the few the
  // rebase changes (the root-relative joint and those above it) again from their own sources.
  const DR = rt.db.rotations, DT = rt.db.translations;
  for (let j = 0; j < J; j++) nlerpJoint(DR, (f * J + j) * 4, (g * J + j) * 4, DT, (f * J + j) * 3, (g * J + j) * 3, a, or, op, j);
  const list = rt.rebasedJoints;
  for (let i = 0; i < list.length; i++) {
    const j = list[i];
    if (rt.jointSource[j] === SOURCE_ROOT_RELATIVE) nlerpJoint(rt.rootRelativeRotations, 4 * f, 4 * g, rt.rootRelativeTranslations, 3 * f, 3 * g, a, or, op, j);
    else nlerpJoint(IDENTITY_ROTATION, 0, 0, ZERO_TRANSLATION, 0, 0, a, or, op, j);
  }
  if (!withVelocities) return;
  const V = rt.velocities, VJ = rt.velocityJoints, n = VJ.length, W = rt.angularVelocities, ov = out.velocities, ow = out.angularVelocities;
  // The joints without a stored velocity move at 0 (b·0 + a·0, as when every joint's was stored).
  ov.fill(0);
  for (let i = 0; i < n; i++) {
    const o = 3 * VJ[i], v0 = (f * n + i) * 3, v1 = (g * n + i) * 3;
    ov[o] = b * V[v0] + a * V[v1]; ov[o + 1] = b * V[v0 + 1] + a * V[v1 + 1]; ov[o + 2] = b * V[v0 + 2] + a * V[v1 + 2];
  }
  for (let i = 0; i < 3 * J; i++) {
    const p0 = f * J * 3 + i, p1 = g * J * 3 + i;
    ow[i] = b * W[p0] + a * W[p1];
  }
}

/**
 * The weighted blend of `layers` crossfade layers (frames, fractions and weights in the state block
 * `s`) into `out`; `tmp` is scratch. Rotations are accumulated in the first layer's hemisphere and
 * normalised (an nlerp blend); positions and velocities are weighted sums.
 */
export function blendLayerPoses(rt: DatabaseRuntime, s: Float64Array, layers: number, out: Pose64, tmp: Pose64): void {
  let total = 0;
  for (let i = 0; i < layers; i++) total += s[LAYER_WEIGHT + i];
  const J = rt.joints;
  out.positions.fill(0); out.rotations.fill(0); out.velocities.fill(0); out.angularVelocities.fill(0);
  for (let i = 0; i < layers; i++) {
    const w = total > 0 ? s[LAYER_WEIGHT + i] / total : 1 / layers;
    sampleFramePose(rt, s[LAYER_FRAME + i], s[LAYER_FRACTION + i], tmp, true);
    for (let j = 0; j < J; j++) {
      const sign = i > 0 && dot4(out.rotations, 4 * j, tmp.rotations, 4 * j) < 0 ? -w : w;
      for (let k = 0; k < 4; k++) out.rotations[4 * j + k] += sign * tmp.rotations[4 * j + k];
      for (let k = 0; k < 3; k++) {
        out.positions[3 * j + k] += w * tmp.positions[3 * j + k];
        out.velocities[3 * j + k] += w * tmp.velocities[3 * j + k];
        out.angularVelocities[3 * j + k] += w * tmp.angularVelocities[3 * j + k];
      }
    }
  }
  for (let j = 0; j < J; j++) quatNormalize(out.rotations, 4 * j, out.rotations, 4 * j);
}

function dot4(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  return a[ao] * b[bo] + a[ao + 1] * b[bo + 1] + a[ao + 2] * b[bo + 2] + a[ao + 3] * b[bo + 3];
}

/**
 * Joint j's local rotation and translation `a` of the way from one frame to the next (rotations
 * R[r0..], R[r1..]; translations T[p0..], T[p1..]) into or[4j..], op[3j..].
 */
function nlerpJoint(R: Float32Array, r0: number, r1: number, T: Float32Array, p0: number, p1: number, a: number, or: Float64Array, op: Float64Array, j: number): void {
  const b = 1 - a;
  // = quatNlerp(or, 4j, R, r0, R, r1, a): neighbouring frames are close, so nlerp matches slerp to ~1e-6.
  const s = R[r0] * R[r1] + R[r0 + 1] * R[r1 + 1] + R[r0 + 2] * R[r1 + 2] + R[r0 + 3] * R[r1 + 3] < 0 ? -a : a;
  const x = b * R[r0] + s * R[r1], y = b * R[r0 + 1] + s * R[r1 + 1], z = b * R[r0 + 2] + s * R[r1 + 2], w = b * R[r0 + 3] + s * R[r1 + 3];
  const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  or[4 * j] = x * inv; or[4 * j + 1] = y * inv; or[4 * j + 2] = z * inv; or[4 * j + 3] = w * inv;
  op[3 * j] = b * T[p0] + a * T[p1]; op[3 * j + 1] = b * T[p0 + 1] + a * T[p1 + 1]; op[3 * j + 2] = b * T[p0 + 2] + a * T[p1 + 2];
}
