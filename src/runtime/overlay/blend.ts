/**
 * The overlay's blend of one joint written readably, with the angular velocity it moves at: what an
 * overlay layer shows for a given configuration (clip, time, weight, mode). The layer's step
 * (overlay/overlay.ts) computes the same blend in expanded scalars; this form serves the switches, where
 * the offsets start from the difference of two configurations, and the tests.
 */
import { quatInvMultiply, quatMultiply, quatMultiplyInv, quatNormalize, quatRotateVec3 } from '../../math/quat.js';
import type { OverlayClip } from './clip.js';

/**
 * Blends whose relative rotation D has a w below this (more than 36 degrees) are slerped; closer
 * ones nlerped. nlerp's uneven speed over a large angle (an arm raised overhead faded out: ~180
 * degrees) gave 7.6 m/s hand jumps in a 0.5 s fade; a slerp keeps them to the fade's own.
 */
export const SLERP_BELOW = 0.95;

/** Results of configRotation (temporaries of one call): the rotation, and its angular velocity (parent frame). */
export const CONFIG_Q = new Float64Array(4);
export const CONFIG_V = new Float64Array(3);

const O = new Float64Array(4);
const REF = new Float64Array(4);
const D = new Float64Array(4);
const C = new Float64Array(4);
const W = new Float64Array(3);
const B = new Float64Array(4);

/** The clip's local rotation of joint j at `time` (s; clamped to its end, or wrapped when it loops) into out, and its angular velocity into w. */
export function sampleOverlayRotation(clip: OverlayClip, time: number, j: number, out: Float64Array, w: Float64Array): void {
  const J = clip.joints, n = clip.frames;
  let u = Math.max(0, time) * clip.fps;
  if (clip.loop) u %= n; else u = Math.min(u, n - 1);
  const i0 = Math.floor(u + 1e-9) % n, a = u - i0 < 1e-9 ? 0 : u - i0;
  const i1 = i0 + 1 < n ? i0 + 1 : clip.loop ? 0 : i0;
  const R = clip.rotations, p = (i0 * J + j) * 4, q = (i1 * J + j) * 4;
  if (a === 0) {
    for (let k = 0; k < 4; k++) out[k] = R[p + k]; // on a frame: as stored (as sampleFramePose reads it)
  } else {
    // quatNlerp(out, R[p..], R[q..], a), in p's hemisphere.
    const s = R[p] * R[q] + R[p + 1] * R[q + 1] + R[p + 2] * R[q + 2] + R[p + 3] * R[q + 3] < 0 ? -a : a;
    for (let k = 0; k < 4; k++) out[k] = (1 - a) * R[p + k] + s * R[q + k];
    quatNormalize(out, 0, out, 0);
  }
  const V = clip.angularVelocities, v0 = (i0 * J + j) * 3, v1 = (i1 * J + j) * 3;
  for (let k = 0; k < 3; k++) w[k] = (1 - a) * V[v0 + k] + a * V[v1 + k];
}

/**
 * D^u (u in [0, 1]) into out along D's own arc (D may be the long way round, w < 0): a slerp from
 * the identity when D turns more than SLERP_BELOW allows, else an nlerp (close rotations).
 */
export function overlayPower(out: Float64Array, D: Float64Array, u: number): void {
  const len = Math.sqrt(D[0] * D[0] + D[1] * D[1] + D[2] * D[2]);
  if (D[3] < SLERP_BELOW && u < 1) {
    const h = Math.atan2(len, D[3]) * u, s = Math.sin(h) / len;
    out[0] = D[0] * s; out[1] = D[1] * s; out[2] = D[2] * s; out[3] = Math.cos(h);
    return;
  }
  for (let k = 0; k < 4; k++) out[k] = u * D[k] + (k === 3 ? 1 - u : 0);
  quatNormalize(out, 0, out, 0);
}

/**
 * What a layer shows for joint j over the base rotation R[at..] (angular velocity (bx, by, bz)):
 * `clip` at `time` with weight t (mask weight × layer weight) in mode 0 (override) or 1 (additive);
 * the base itself when clip is null or t is 0. Into CONFIG_Q, and CONFIG_V its angular velocity,
 * to first order: override (1 − t)·ω_B + t·ω_O; additive ω_B + t·(B·R⁻¹)·ω_O.
 * The blend is B · D^t (overlayPower) with D = B⁻¹·O (override; this is slerp(B, O, t)) or R⁻¹·O
 * (additive), D taken the way `arc[arcAt..]` went (the layer's last step) or, without one (null or
 * zero), the short way.
 */
export function configRotation(
  R: Float64Array, at: number, clip: OverlayClip | null, time: number, t: number, mode: number,
  j: number, bx: number, by: number, bz: number, arc: Float64Array | null, arcAt: number,
): void {
  for (let k = 0; k < 4; k++) B[k] = R[at + k];
  if (clip === null || !(t > 0)) {
    CONFIG_Q.set(B); CONFIG_V[0] = bx; CONFIG_V[1] = by; CONFIG_V[2] = bz;
    return;
  }
  sampleOverlayRotation(clip, time, j, O, W);
  if (mode === 0 && t >= 1) {
    CONFIG_Q.set(O);
    CONFIG_V[0] = W[0]; CONFIG_V[1] = W[1]; CONFIG_V[2] = W[2];
    return;
  }
  for (let k = 0; k < 4; k++) REF[k] = mode === 1 ? clip.rotations[4 * j + k] : B[k];
  quatInvMultiply(D, 0, REF, 0, O, 0);
  const dot = arc ? D[0] * arc[arcAt] + D[1] * arc[arcAt + 1] + D[2] * arc[arcAt + 2] + D[3] * arc[arcAt + 3] : 0;
  const sign = dot < 0 || (dot === 0 && D[3] < 0) ? -1 : 1;
  const u = Math.min(1, t);
  for (let k = 0; k < 4; k++) D[k] *= sign;
  overlayPower(C, D, u);
  quatMultiply(CONFIG_Q, 0, B, 0, C, 0);
  if (mode === 1) {
    quatMultiplyInv(C, 0, B, 0, REF, 0);
    quatRotateVec3(W, 0, C, 0, W, 0);
    CONFIG_V[0] = bx + t * W[0]; CONFIG_V[1] = by + t * W[1]; CONFIG_V[2] = bz + t * W[2];
    return;
  }
  CONFIG_V[0] = (1 - u) * bx + u * W[0]; CONFIG_V[1] = (1 - u) * by + u * W[1]; CONFIG_V[2] = (1 - u) * bz + u * W[2];
}
