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
 * Savitzky-Golay smoothing (a least-squares quadratic over a window of 2*half+1 samples, evaluated at
 * each sample) of `src[0..n)` into `out`. At the ends the window keeps its length and slides inside
 * the signal (the polynomial of the first / last full window is evaluated there, like SciPy's
 * "interp" mode): the edge samples are smoothed as much as the interior instead of being returned
 * raw, which matters because features extrapolate a clip's future from its last frames.
 * A quadratic follows a steady turn or acceleration without lag or bias; what it removes is what
 * varies within a window, such as the hips' sway at every step.
 */
export function savitzkyGolay(src: Float64Array, n: number, half: number, out: Float64Array): void {
  const h = Math.max(0, Math.min(half, (n - 1) >> 1));
  if (h === 0 || n < 3) { for (let i = 0; i < n; i++) out[i] = src[i]; return; }
  const len = 2 * h + 1;
  // The sums of powers of t depend only on where the window starts against i (d = a - i): the same
  // for every interior sample. Integers, so summed once they equal the sums taken at every sample.
  let lastD = 1, s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  for (let i = 0; i < n; i++) {
    // Window [a, a + len) containing i, centred where possible.
    const a = Math.min(Math.max(0, i - h), n - len);
    if (a - i !== lastD) {
      lastD = a - i;
      s0 = 0; s1 = 0; s2 = 0; s3 = 0; s4 = 0;
      for (let t = lastD; t < lastD + len; t++) { const t2 = t * t; s0 += 1; s1 += t; s2 += t2; s3 += t2 * t; s4 += t2 * t2; }
    }
    // Normal equations of y ~ c0 + c1 t + c2 t^2 with t = k - i (small numbers: well conditioned).
    let y0 = 0, y1 = 0, y2 = 0;
    for (let k = a; k < a + len; k++) {
      const t = k - i, y = src[k];
      y0 += y; y1 += y * t; y2 += y * (t * t);
    }
    // c0 by Cramer's rule on [[s0 s1 s2][s1 s2 s3][s2 s3 s4]] c = [y0 y1 y2].
    const det = s0 * (s2 * s4 - s3 * s3) - s1 * (s1 * s4 - s3 * s2) + s2 * (s1 * s3 - s2 * s2);
    const d0 = y0 * (s2 * s4 - s3 * s3) - s1 * (y1 * s4 - s3 * y2) + s2 * (y1 * s3 - s2 * y2);
    out[i] = d0 / det;
  }
}

/**
 * Root track of one clip: hips projected to the ground, facing = the hips' forward axis projected
 * to the ground. Both are smoothed with savitzkyGolay, positions over +-`positionHalfWindow` frames
 * and facing over +-`facingHalfWindow` frames: real hips sway sideways and yaw at every step, and a
 * root that follows them makes root velocity oscillate and every trajectory feature wobble with the
 * gait (as in Holden's controller: the simulation bone smoothed over ~0.5 s, its facing over ~1 s).
 * Writes positions (frames*3, y = 0) and yaw rotations (frames*4).
 */
export function computeRootTrack(
  worldRot: Float64Array, worldPos: Float64Array, J: number, frames: number,
  hips: number, hipsForwardLocal: Float64Array, facingHalfWindow: number,
  outPos: Float64Array, outRot: Float64Array, positionHalfWindow = facingHalfWindow, loop = false,
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
  const sx = new Float64Array(frames), sz = new Float64Array(frames), spx = new Float64Array(frames), spz = new Float64Array(frames);
  if (loop && frames >= 3) {
    // A loop's window wraps into the neighbouring cycles (its end flows into its start): smoothing
    // it as a clip with two ends would bend the track at the seam.
    smoothCyclic(px, pz, dirX, dirZ, frames, positionHalfWindow, facingHalfWindow, spx, spz, sx, sz);
  } else {
    savitzkyGolay(dirX, frames, facingHalfWindow, sx);
    savitzkyGolay(dirZ, frames, facingHalfWindow, sz);
    savitzkyGolay(px, frames, positionHalfWindow, spx);
    savitzkyGolay(pz, frames, positionHalfWindow, spz);
  }
  for (let f = 0; f < frames; f++) {
    outPos[3 * f] = spx[f]; outPos[3 * f + 1] = 0; outPos[3 * f + 2] = spz[f];
    const yaw = Math.hypot(sx[f], sz[f]) > 1e-9 ? Math.atan2(sx[f], sz[f]) : Math.atan2(dirX[f], dirZ[f]);
    quatFromYaw(outRot, 4 * f, yaw);
  }
}

/**
 * Savitzky-Golay smoothing of a looping clip's ground track: the samples are extended by the
 * neighbouring cycles on both sides, each cycle moved on by the cycle's displacement and turned by
 * its turn (both measured from the last frame, extrapolated one frame into the next cycle, to the
 * first), the extended signals are smoothed, and the middle cycle is kept.
 */
function smoothCyclic(
  px: Float64Array, pz: Float64Array, dirX: Float64Array, dirZ: Float64Array, F: number,
  positionHalf: number, facingHalf: number,
  outPx: Float64Array, outPz: Float64Array, outDx: Float64Array, outDz: Float64Array,
): void {
  const pad = Math.max(positionHalf, facingHalf, 1);
  // The cycle: frame F (the next cycle's first) extrapolated from the last two frames.
  const turn = Math.atan2(2 * dirX[F - 1] - dirX[F - 2], 2 * dirZ[F - 1] - dirZ[F - 2]) - Math.atan2(dirX[0], dirZ[0]);
  const c = Math.cos(turn), s = Math.sin(turn);
  const endX = 2 * px[F - 1] - px[F - 2], endZ = 2 * pz[F - 1] - pz[F - 2];
  const n = F + 2 * pad;
  const ex = new Float64Array(n), ez = new Float64Array(n), edx = new Float64Array(n), edz = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let k = i - pad, cycles = 0;
    while (k < 0) { k += F; cycles--; }
    while (k >= F) { k -= F; cycles++; }
    // Sample k moved into cycle `cycles`: turned about the first frame's position and moved on (or back).
    let x = px[k] - px[0], z = pz[k] - pz[0], dx = dirX[k], dz = dirZ[k];
    for (let m = 0; m < Math.abs(cycles); m++) {
      const sign = cycles > 0 ? 1 : -1, sn = sign * s;
      if (cycles > 0) {
        // next cycle: rotate by the turn, then add the cycle's displacement
        const rx = c * x + sn * z, rz = -sn * x + c * z; x = rx + (endX - px[0]); z = rz + (endZ - pz[0]);
      } else {
        // previous cycle: remove the displacement, rotate back
        const ux = x - (endX - px[0]), uz = z - (endZ - pz[0]); x = c * ux + sn * uz; z = -sn * ux + c * uz;
      }
      const rdx = c * dx + sn * dz, rdz = -sn * dx + c * dz; dx = rdx; dz = rdz;
    }
    ex[i] = px[0] + x; ez[i] = pz[0] + z; edx[i] = dx; edz[i] = dz;
  }
  const sx = new Float64Array(n), sz = new Float64Array(n), sdx = new Float64Array(n), sdz = new Float64Array(n);
  savitzkyGolay(ex, n, positionHalf, sx);
  savitzkyGolay(ez, n, positionHalf, sz);
  savitzkyGolay(edx, n, facingHalf, sdx);
  savitzkyGolay(edz, n, facingHalf, sdz);
  for (let f = 0; f < F; f++) { outPx[f] = sx[f + pad]; outPz[f] = sz[f + pad]; outDx[f] = sdx[f + pad]; outDz[f] = sdz[f + pad]; }
}
