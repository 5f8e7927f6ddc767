/**
 * Root motion of sampled root tracks, the way the runtime plays them: each frame of a clip carries
 * the root's velocity in the root's own frame (x, y, z, m/s) and its turn rate (rad/s), constant
 * until the next frame (DatabaseRuntime.rootVelocity / rootYawRate). Playing an interval is then a
 * sequence of pieces of constant velocity, each appended to the increment accumulated so far in
 * the yaw space (spaces.ts): an increment is a yaw delta [dx, dy, dz, dyaw] in the frame the
 * interval started in. Blending layers blends the pieces' displacements over the same sub-interval
 * with the layers' mean weights over it, so a velocity change inside a step is integrated, not
 * averaged away.
 *
 * These are the unchecked kernels of the controller's step (its inputs come from a validated
 * database and a validated step); the checked public API is in local.ts and scalar.ts.
 */
import type { Buf } from '../../math/quat.js';

/**
 * acc ∘ piece, where the piece moves at constant local velocity (vx, vy, vz) and turns at `yawRate`
 * for `seconds`: SPACE_YAW.compose(acc, acc, [vx·s, vy·s, vz·s, yawRate·s]) without the angle wrap
 * (a step turns far less than half a revolution). The displacement is turned by the yaw accumulated
 * so far; most steps stay within one frame, where that is 0 and no trigonometry is needed.
 */
export function appendVelocityPiece(acc: Buf, o: number, vx: number, vy: number, vz: number, yawRate: number, seconds: number): void {
  const yaw = acc[o + 3];
  const c = yaw === 0 ? 1 : Math.cos(yaw), s = yaw === 0 ? 0 : Math.sin(yaw);
  acc[o] += (c * vx + s * vz) * seconds;
  acc[o + 1] += vy * seconds;
  acc[o + 2] += (-s * vx + c * vz) * seconds;
  acc[o + 3] = yaw + yawRate * seconds;
}

/**
 * acc ∘ the blend of `layers` pieces of constant velocity over the same `seconds`: velocity i is
 * velocities[4i..4i+3] (vx, vy, vz, yaw rate) and its weight weights[i] (the layer's mean weight
 * over the piece). The blended displacement is Σ wᵢ·vᵢ·s / Σ wᵢ — for two layers exactly
 * blendYawRootDeltaLocal(a, b, w₂ / (w₁ + w₂)) — so the layers' origins and headings never enter.
 * A total weight of 0 appends nothing.
 */
export function appendBlendedPieces(acc: Buf, o: number, layers: number, velocities: Float64Array, weights: Float64Array, seconds: number): void {
  let total = 0, vx = 0, vy = 0, vz = 0, w = 0;
  for (let i = 0; i < layers; i++) {
    const k = weights[i];
    total += k;
    vx += k * velocities[4 * i]; vy += k * velocities[4 * i + 1]; vz += k * velocities[4 * i + 2]; w += k * velocities[4 * i + 3];
  }
  if (!(total > 0)) return;
  appendVelocityPiece(acc, o, vx / total, vy / total, vz / total, w / total, seconds);
}
