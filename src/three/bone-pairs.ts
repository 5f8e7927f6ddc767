/**
 * Which database joint drives which character bone, and the constant rotation that carries one's
 * world rotation over to the other's:
 *
 *   targetWorld = sourceWorld * inverse(sourceRest) * align * targetRest
 *
 * sourceRest and targetRest are the two rest (bind) world rotations. `align` is the swing that
 * turns the character's bind bone direction (towards the next mapped bone: thigh to knee, upper arm
 * to forearm, ...) onto the database's rest bone direction: without it an A-pose character would
 * keep its arms 45 degrees below the capture's all the time, since the formula alone maps rest onto
 * rest. Bones without a next mapped bone (hands, head, toes) take their parent's swing; the hips
 * take none (both rigs stand upright, facing the same way once the character is turned).
 *
 * Torsos of different lengths (three spine bones against two) are paired bottom and top first,
 * the rest spread evenly; unpaired bones keep the pose they had when the rig was made, relative to their parent (TargetRig.restLocal).
 */
import { quatFromTo, quatInvMultiply, quatMultiply } from '../math/quat.js';
import type { HumanoidRole } from './find-bones.js';
import type { SourceRig } from './source-rig.js';
import type { TargetRig } from './target-rig.js';

export interface BonePairs {
  /** Per target rig joint: the database joint driving it, or -1 (kept at its bind local rotation). */
  readonly source: Int32Array;
  /** Per target rig joint: the constant correction (4 each; identity where unpaired). */
  readonly correction: Float64Array;
  /** Per target rig joint: the role it plays (undefined: none). */
  readonly role: readonly (string | undefined)[];
}

/** The bone a role aims along, for the swing. */
const NEXT: Partial<Record<HumanoidRole, HumanoidRole>> = {
  neck: 'head',
  leftShoulder: 'leftUpperArm', leftUpperArm: 'leftLowerArm', leftLowerArm: 'leftHand',
  rightShoulder: 'rightUpperArm', rightUpperArm: 'rightLowerArm', rightLowerArm: 'rightHand',
  leftUpperLeg: 'leftLowerLeg', leftLowerLeg: 'leftFoot', leftFoot: 'leftToes',
  rightUpperLeg: 'rightLowerLeg', rightLowerLeg: 'rightFoot', rightFoot: 'rightToes',
};
const CHAIN_NAMES = ['spine', 'chest', 'upperChest'];

export function pairBones(src: SourceRig, tgt: TargetRig, alignRest = true): BonePairs {
  const J = tgt.names.length;
  const source = new Int32Array(J).fill(-1);
  const role: (string | undefined)[] = new Array(J).fill(undefined);
  // Pairs as target joint -> (source joint, next target joint, next source joint).
  const next = new Int32Array(J).fill(-1), nextSrc = new Int32Array(J).fill(-1);
  const tr = tgt.bones.roles, sr = src.bones.roles;
  for (const r of Object.keys(tr) as HumanoidRole[]) {
    if (CHAIN_NAMES.includes(r)) continue;
    if (tr[r] >= 0 && sr[r] >= 0) { source[tr[r]] = sr[r]; role[tr[r]] = r; }
  }
  for (const r of Object.keys(NEXT) as HumanoidRole[]) {
    const n = NEXT[r] as HumanoidRole;
    if (tr[r] >= 0 && sr[r] >= 0 && tr[n] >= 0 && sr[n] >= 0) { next[tr[r]] = tr[n]; nextSrc[tr[r]] = sr[n]; }
  }
  // Torso: bottom to bottom, top to top, the rest spread evenly.
  const tc = tgt.bones.spineChain, sc = src.bones.spineChain;
  if (tc.length > 0 && sc.length > 0) {
    const pick = (i: number): number => sc[tc.length === 1 ? 0 : Math.round((i * (sc.length - 1)) / (tc.length - 1))];
    tc.forEach((t, i) => { source[t] = pick(i); role[t] = CHAIN_NAMES[i] ?? `spine${i}`; });
    tc.forEach((t, i) => {
      const up = i + 1 < tc.length ? [tc[i + 1], pick(i + 1)] : tr.neck >= 0 && sr.neck >= 0 ? [tr.neck, sr.neck] : tr.head >= 0 && sr.head >= 0 ? [tr.head, sr.head] : null;
      if (up && up[1] !== source[t]) { next[t] = up[0]; nextSrc[t] = up[1]; }
    });
  }
  if (tr.neck >= 0 && sr.neck >= 0 && tr.head < 0) next[tr.neck] = -1;

  // Corrections, parents first (a bone without a direction takes its parent's swing).
  const correction = new Float64Array(4 * J);
  const align = new Float64Array(4 * J);
  const a = new Float64Array(3), b = new Float64Array(3), tmp = new Float64Array(4);
  for (let j = 0; j < J; j++) {
    align[4 * j + 3] = 1;
    const p = tgt.parents[j];
    if (!alignRest) { /* identity swing */ }
    else if (next[j] >= 0 && unit(a, tgt.restPos, next[j], j) && unit(b, src.restPos, nextSrc[j], source[j])) quatFromTo(align, 4 * j, a, 0, b, 0);
    else if (p >= 0 && j !== tr.hips) align.set(align.subarray(4 * p, 4 * p + 4), 4 * j);
    const s = source[j];
    if (s < 0) { correction[4 * j + 3] = 1; continue; }
    // inverse(sourceRest) * align * targetRest
    quatMultiply(tmp, 0, align, 4 * j, tgt.restRot, 4 * j);
    quatInvMultiply(correction, 4 * j, src.restRot, 4 * s, tmp, 0);
  }
  return { source, correction, role };
}

/** out = unit(p[to] - p[from]); false for a zero-length bone. */
function unit(out: Float64Array, p: Float64Array, to: number, from: number): boolean {
  const x = p[3 * to] - p[3 * from], y = p[3 * to + 1] - p[3 * from + 1], z = p[3 * to + 2] - p[3 * from + 2];
  const l = Math.hypot(x, y, z);
  if (!(l > 1e-9)) return false;
  out[0] = x / l; out[1] = y / l; out[2] = z / l;
  return true;
}
