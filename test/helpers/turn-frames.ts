/**
 * The same skeleton and motion with every joint's local frame turned by a constant (bone rolls set
 * by hand, a right side whose frames are not the left's mirror images): world positions and the
 * world motion are unchanged, only the frames the rotations are expressed in differ.
 */
import type { Skeleton } from '../../src/anim/skeleton.js';
import type { Clip } from '../../src/anim/clip.js';
import { mirrorJointMap } from '../../src/features/roles.js';
import { quatInvMultiply, quatInvRotateVec3, quatMultiply, quatNormalize } from '../../src/math/quat.js';

/** A deterministic pseudo-random unit quaternion per index and salt (a turn of up to ~2 rad about a mixed axis). */
export function turnQuaternion(i: number, salt: number): Float64Array {
  const r = (k: number) => Math.sin(12.9898 * (i + 1) + 78.233 * (k + 1) * (salt + 1)) * 0.9;
  const q = new Float64Array([r(0), r(1), r(2), 1]);
  return quatNormalize(q, 0, q, 0) as Float64Array;
}

/**
 * Per joint, a constant turn C_j of its frame: arbitrary for the first joint of each left/right pair
 * (by name) and on the centre line; the other joint of a pair gets the first's mirror image turned
 * once more, so that no local axis relates the two sides.
 */
export function arbitraryFrameTurns(s: Skeleton, salt: number): Float64Array {
  const J = s.names.length, partner = mirrorJointMap(s.names), C = new Float64Array(4 * J);
  for (let j = 0; j < J; j++) if (partner[j] >= j) C.set(turnQuaternion(j, salt), 4 * j);
  for (let j = 0; j < J; j++) {
    const m = partner[j];
    if (m >= j) continue;
    const mirrored = new Float64Array([C[4 * m], -C[4 * m + 1], -C[4 * m + 2], C[4 * m + 3]]); // S C_m S
    quatMultiply(C, 4 * j, mirrored, 0, turnQuaternion(j, salt + 1), 0);
  }
  return C;
}

/** The skeleton and clip with each joint's frame turned by C_j: L~ = C_pᵀ L C_j, t~ = C_pᵀ t, offsets and end sites C_pᵀ o. */
export function turnJointFrames(s: Skeleton, clip: Clip, C: Float64Array): { skeleton: Skeleton; clip: Clip } {
  const J = s.names.length, id = new Float64Array([0, 0, 0, 1]);
  const parentTurn = (p: number): [Float64Array, number] => (p < 0 ? [id, 0] : [C, 4 * p]);
  const offsets = new Float64Array(3 * J), endSiteOffsets = new Float64Array(s.endSiteOffsets.length);
  const rotations = new Float64Array(clip.rotations.length), translations = new Float64Array(clip.translations.length);
  const tmp = new Float64Array(4);
  for (let j = 0; j < J; j++) {
    const [P, po] = parentTurn(s.parents[j]);
    quatInvRotateVec3(offsets, 3 * j, P, po, s.offsets, 3 * j);
    for (let f = 0; f < clip.frameCount; f++) {
      const o = (f * J + j) * 4;
      quatInvMultiply(tmp, 0, P, po, clip.rotations, o);
      quatMultiply(rotations, o, tmp, 0, C, 4 * j);
      quatInvRotateVec3(translations, (f * J + j) * 3, P, po, clip.translations, (f * J + j) * 3);
    }
  }
  for (let e = 0; e < s.endSiteParents.length; e++) {
    const [P, po] = parentTurn(s.endSiteParents[e]);
    quatInvRotateVec3(endSiteOffsets, 3 * e, P, po, s.endSiteOffsets, 3 * e);
  }
  return { skeleton: { ...s, offsets, endSiteOffsets }, clip: { ...clip, rotations, translations } };
}
