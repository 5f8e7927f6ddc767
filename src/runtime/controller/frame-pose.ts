/**
 * Poses read from the database at run time: the root-relative local pose at a frame plus a
 * fraction towards the next one, and the blend of several crossfade layers.
 */
import type { PoseBuffers } from '../inertialization/inertialize.js';
import type { DatabaseRuntime } from '../database-runtime.js';
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
  const R = rt.rotations, T = rt.translations;
  const or = out.rotations, op = out.positions;
  if (fraction === 0) {
    // On a frame exactly (a 30 Hz step on 30 fps data): a copy.
    const r0 = f * J * 4, p0 = f * J * 3;
    for (let i = 0; i < 4 * J; i++) or[i] = R[r0 + i];
    for (let i = 0; i < 3 * J; i++) op[i] = T[p0 + i];
    if (withVelocities) {
      const V = rt.velocities, W = rt.angularVelocities;
      for (let i = 0; i < 3 * J; i++) { out.velocities[i] = V[p0 + i]; out.angularVelocities[i] = W[p0 + i]; }
    }
    return;
  }
  const clip = rt.db.clips[rt.clipOf[f]];
  const g = f + 1 < clip.start + clip.count ? f + 1 : clip.loop ? clip.start : f;
  const a = fraction, b = 1 - fraction;
  for (let j = 0; j < J; j++) {
    const r0 = (f * J + j) * 4, r1 = (g * J + j) * 4;
    // = quatNlerp(or, 4j, R, r0, R, r1, a): neighbouring frames are close, so nlerp matches slerp to ~1e-6.
    const s = R[r0] * R[r1] + R[r0 + 1] * R[r1 + 1] + R[r0 + 2] * R[r1 + 2] + R[r0 + 3] * R[r1 + 3] < 0 ? -a : a;
    const x = b * R[r0] + s * R[r1], y = b * R[r0 + 1] + s * R[r1 + 1], z = b * R[r0 + 2] + s * R[r1 + 2], w = b * R[r0 + 3] + s * R[r1 + 3];
    const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
    or[4 * j] = x * inv; or[4 * j + 1] = y * inv; or[4 * j + 2] = z * inv; or[4 * j + 3] = w * inv;
    const p0 = (f * J + j) * 3, p1 = (g * J + j) * 3;
    op[3 * j] = b * T[p0] + a * T[p1]; op[3 * j + 1] = b * T[p0 + 1] + a * T[p1 + 1]; op[3 * j + 2] = b * T[p0 + 2] + a * T[p1 + 2];
  }
  if (!withVelocities) return;
  const V = rt.velocities, W = rt.angularVelocities, ov = out.velocities, ow = out.angularVelocities;
  for (let i = 0; i < 3 * J; i++) {
    const p0 = f * J * 3 + i, p1 = g * J * 3 + i;
    ov[i] = b * V[p0] + a * V[p1];
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
