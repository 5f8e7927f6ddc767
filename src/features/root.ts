import type { Skeleton } from '../anim/skeleton.js';
import { quatFromYaw, quatInvRotateVec3, quatRotateVec3 } from '../math/quat.js';

/**
 * The joint just below `hips` on the way to `foot` (the thigh), or -1 when the foot does not
 * hang below the hips.
 */
export function legRootJoint(s: Skeleton, hips: number, foot: number): number {
  let j = foot;
  while (j >= 0 && s.parents[j] !== hips) j = s.parents[j];
  return j;
}

/**
 * The hips' forward axis in the hips' own frame, estimated from the legs: forward = across x up,
 * with across = left thigh - right thigh (facing +Z, left is +X). Averaged over all given frames
 * so that no single pose decides it.
 */
export function estimateHipsForwardAxis(
  worldRot: Float64Array, worldPos: Float64Array, J: number, frames: number,
  hips: number, leftLeg: number, rightLeg: number,
): [number, number, number] {
  const acc = [0, 0, 0];
  const fwd = new Float64Array(3);
  const local = new Float64Array(3);
  for (let f = 0; f < frames; f++) {
    const l = (f * J + leftLeg) * 3, r = (f * J + rightLeg) * 3;
    const ax = worldPos[l] - worldPos[r], az = worldPos[l + 2] - worldPos[r + 2];
    // across x up, with up = +Y: (ax, ay, az) x (0, 1, 0) = (-az, 0, ax)
    fwd[0] = -az; fwd[1] = 0; fwd[2] = ax;
    const len = Math.hypot(fwd[0], fwd[2]);
    if (len < 1e-9) continue;
    fwd[0] /= len; fwd[2] /= len;
    quatInvRotateVec3(local, 0, worldRot, (f * J + hips) * 4, fwd, 0);
    acc[0] += local[0]; acc[1] += local[1]; acc[2] += local[2];
  }
  const n = Math.hypot(acc[0], acc[1], acc[2]);
  if (n < 1e-9) return [0, 0, 1];
  return [acc[0] / n, acc[1] / n, acc[2] / n];
}

/**
 * Root track of one clip: hips projected to the ground, facing = the hips' forward axis projected
 * to the ground, both smoothed with a centred window of +-`smoothFrames` (shrunk symmetrically at
 * the clip ends so that the first and last samples stay put).
 * Writes positions (frames*3, y = 0) and yaw rotations (frames*4).
 */
export function computeRootTrack(
  worldRot: Float64Array, worldPos: Float64Array, J: number, frames: number,
  hips: number, hipsForwardLocal: Float64Array, smoothFrames: number,
  outPos: Float64Array, outRot: Float64Array,
): void {
  const dirX = new Float64Array(frames), dirZ = new Float64Array(frames);
  const px = new Float64Array(frames), pz = new Float64Array(frames);
  const f3 = new Float64Array(3);
  let lastX = 0, lastZ = 1;
  for (let f = 0; f < frames; f++) {
    quatRotateVec3(f3, 0, worldRot, (f * J + hips) * 4, hipsForwardLocal, 0);
    const len = Math.hypot(f3[0], f3[2]);
    // A hips axis pointing straight up or down has no heading: keep the last one.
    if (len > 1e-6) { lastX = f3[0] / len; lastZ = f3[2] / len; }
    dirX[f] = lastX; dirZ[f] = lastZ;
    px[f] = worldPos[(f * J + hips) * 3];
    pz[f] = worldPos[(f * J + hips) * 3 + 2];
  }
  for (let f = 0; f < frames; f++) {
    const w = Math.min(smoothFrames, f, frames - 1 - f);
    let sx = 0, sz = 0, spx = 0, spz = 0;
    for (let k = f - w; k <= f + w; k++) { sx += dirX[k]; sz += dirZ[k]; spx += px[k]; spz += pz[k]; }
    const n = 2 * w + 1;
    outPos[3 * f] = spx / n; outPos[3 * f + 1] = 0; outPos[3 * f + 2] = spz / n;
    const yaw = Math.hypot(sx, sz) > 1e-9 ? Math.atan2(sx, sz) : Math.atan2(dirX[f], dirZ[f]);
    quatFromYaw(outRot, 4 * f, yaw);
  }
}
