/**
 * A character across a change of its level of detail (docs/lod.md, "Level changes"): what a level
 * switches off fades out instead of cutting, and what it switches on fades in.
 *
 * - Foot IK: a weight springs towards 1 (IK on) or 0 (off) with a critically damped spring, so the
 *   legs' motion stays continuous in value and rate. While the weight is between the two, the IK
 *   runs as it always does and the output is the pose before IK blended towards the IK's pose by
 *   the weight (rotations along the short way, translations linearly: the hips drop).
 * - Inertialization is not handled here: switched off, the offsets of the last transition go on
 *   decaying (InertializationDecay keeps them; a transition at that level cuts and drops them), and
 *   a new half-life continues them from where they are (InertializationDecay.rebase).
 */
import { decaySpringUpdate } from '../../math/spring.js';

/** Half-life of the foot IK weight across a level change (s): the design's IK blend half-life. */
export const LEVEL_BLEND_HALF_LIFE = 0.1;

/** A weight within this of its target, moving slower than this per step, is put on it. */
const SETTLED = 1e-3;

/** Springs the weight at S[at] (its rate at S[at + 1]) towards `target` over dt; puts it on the target once settled. */
export function stepBlendWeight(S: Float64Array, at: number, target: number, dt: number): void {
  S[at] -= target;
  decaySpringUpdate(S, at, S, at + 1, LEVEL_BLEND_HALF_LIFE, dt, 1);
  S[at] += target;
  if (Math.abs(S[at] - target) < SETTLED && Math.abs(S[at + 1]) * dt < SETTLED) {
    S[at] = target;
    S[at + 1] = 0;
  }
}

// The pose before foot IK: one buffer per thread, grown to the largest skeleton seen (a crowd's
// characters take turns with it).
let saved = new Float64Array(0);

/** Copies J joints' local rotations (4 each) and translations (3 each) aside for blendFromSaved. */
export function savePose(rotations: Float64Array, translations: Float64Array, J: number): void {
  if (saved.length < 7 * J) saved = new Float64Array(7 * J);
  saved.set(rotations.subarray(0, 4 * J), 0);
  saved.set(translations.subarray(0, 3 * J), 4 * J);
}

/**
 * rotations, translations ← the saved pose blended towards them by w in [0, 1]:
 * q = normalise(q_saved + w·(±q − q_saved)) with the sign that takes the short way, t = t_saved +
 * w·(t − t_saved). Joints the IK left alone keep their value exactly.
 */
export function blendFromSaved(rotations: Float64Array, translations: Float64Array, J: number, weight: number): void {
  const w = weight < 0 ? 0 : weight > 1 ? 1 : weight;
  for (let j = 0; j < J; j++) {
    const r = 4 * j;
    const ax = saved[r], ay = saved[r + 1], az = saved[r + 2], aw = saved[r + 3];
    let bx = rotations[r], by = rotations[r + 1], bz = rotations[r + 2], bw = rotations[r + 3];
    if (ax === bx && ay === by && az === bz && aw === bw) continue;
    if (ax * bx + ay * by + az * bz + aw * bw < 0) { bx = -bx; by = -by; bz = -bz; bw = -bw; }
    const x = ax + w * (bx - ax), y = ay + w * (by - ay), z = az + w * (bz - az), qw = aw + w * (bw - aw);
    const n = 1 / Math.sqrt(x * x + y * y + z * z + qw * qw);
    rotations[r] = x * n; rotations[r + 1] = y * n; rotations[r + 2] = z * n; rotations[r + 3] = qw * n;
  }
  const t0 = 4 * J;
  for (let i = 0; i < 3 * J; i++) {
    const a = saved[t0 + i];
    if (a !== translations[i]) translations[i] = a + w * (translations[i] - a);
  }
}
