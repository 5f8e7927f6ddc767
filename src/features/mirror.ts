import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { quatMultiply, quatInvMultiply, quatInvRotateVec3 } from '../math/quat.js';
import { mirrorJointMap } from './roles.js';

/**
 * Mirroring across the world YZ plane (x negated) with left/right joints swapped.
 *
 * World rotations mirror as G' = S G S C, where S negates x and C is a fixed correction that
 * maps each joint's rest offsets onto its counterpart's mirrored offsets. For a rest pose that is
 * symmetric about the plane of axis `a` (T_a), C = S T_a: identity when the rest pose is symmetric
 * in x, a half turn about the third axis otherwise. In local terms:
 *   root:      L' = m(L) C,              t' = S t
 *   non-root:  L' = C^-1 m(L_partner) C,  t' = C^-1 S t_partner
 * where m(q) = (x, -y, -z, w) is the x-mirror of a rotation.
 */
export interface MirrorSetup {
  partner: Int32Array;
  /** Correction quaternion C. */
  correction: Float64Array;
}

/** The axis (0 x, 1 y, 2 z) about whose plane the skeleton's rest offsets are most symmetric. */
export function restSymmetryAxis(s: Skeleton, partner: Int32Array): number {
  let best = 0, bestErr = Infinity;
  for (let a = 0; a < 3; a++) {
    let err = 0;
    for (let j = 0; j < s.names.length; j++) {
      const m = partner[j];
      for (let k = 0; k < 3; k++) {
        const reflected = k === a ? -s.offsets[3 * j + k] : s.offsets[3 * j + k];
        const d = s.offsets[3 * m + k] - reflected;
        err += d * d;
      }
    }
    if (err < bestErr - 1e-12) { bestErr = err; best = a; }
  }
  return best;
}

export function mirrorSetup(s: Skeleton): MirrorSetup {
  const partner = mirrorJointMap(s.names);
  const axis = restSymmetryAxis(s, partner);
  // S T_a: x-negation composed with the a-axis reflection is a half turn about the remaining axis.
  const correction = new Float64Array([0, 0, 0, 1]);
  if (axis === 1) correction.set([0, 0, 1, 0]);
  if (axis === 2) correction.set([0, 1, 0, 0]);
  return { partner, correction };
}

/** The left/right mirrored copy of a clip (same skeleton, same joint order). */
export function mirrorClip(s: Skeleton, clip: Clip, setup: MirrorSetup = mirrorSetup(s)): Clip {
  const J = s.names.length, F = clip.frameCount;
  const rot = new Float64Array(clip.rotations.length);
  const pos = new Float64Array(clip.translations.length);
  const C = setup.correction;
  const q = new Float64Array(4), t = new Float64Array(3);
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const src = setup.partner[j];
      const ro = (f * J + src) * 4, po = (f * J + src) * 3;
      q[0] = clip.rotations[ro]; q[1] = -clip.rotations[ro + 1]; q[2] = -clip.rotations[ro + 2]; q[3] = clip.rotations[ro + 3];
      t[0] = -clip.translations[po]; t[1] = clip.translations[po + 1]; t[2] = clip.translations[po + 2];
      const out = (f * J + j) * 4, outP = (f * J + j) * 3;
      if (s.parents[j] < 0) {
        quatMultiply(rot, out, q, 0, C, 0);
        pos[outP] = t[0]; pos[outP + 1] = t[1]; pos[outP + 2] = t[2];
      } else {
        quatMultiply(q, 0, q, 0, C, 0);
        quatInvMultiply(rot, out, C, 0, q, 0);
        quatInvRotateVec3(pos, outP, C, 0, t, 0);
      }
    }
  }
  return { ...clip, name: `${clip.name}_mirror`, rotations: rot, translations: pos, tags: [...clip.tags] };
}
