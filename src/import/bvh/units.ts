/**
 * Units of a BVH file. BVH does not say whether it counts in metres, centimetres, millimetres,
 * inches or something else (CMU's captures count in 1/0.45 inch); the body's proportions do: its
 * length along its bones (bodyLength), the same in every frame whatever the pose.
 */
import type { BvhHierarchy } from './hierarchy.js';
import type { BvhPoses } from './frames.js';

/** A unit `scale: 'auto'` can detect; 'fit' scales a body no standard unit makes a person of to BVH_REFERENCE_LENGTH. */
export type BvhUnit = 'm' | 'cm' | 'mm' | 'in' | 'fit';

/** Metres per file unit for the standard units that `scale: 'auto'` can detect. */
export const BVH_UNIT_SCALES: Readonly<Record<Exclude<BvhUnit, 'fit'>, number>> = { m: 1, cm: 0.01, mm: 0.001, in: 0.0254 };

/**
 * A person's length along their bones (m): head to foot, or fingertip to fingertip, is about 1.2
 * times their height (measured: 1.97-2.07 m for the shared captures' performers).
 */
export const BVH_REFERENCE_LENGTH = 2;

/**
 * A standard unit is taken when it makes the body this close to BVH_REFERENCE_LENGTH (a factor,
 * either way: a person 1.0 to 2.3 m tall); else the body is scaled to the reference ('fit').
 */
export const BVH_UNIT_TOLERANCE = 1.4;

/**
 * The unit and its scale (metres per file unit) for a body `length` file units long along its
 * bones: the standard unit nearest BVH_REFERENCE_LENGTH in log terms when it lies within
 * BVH_UNIT_TOLERANCE of it, else 'fit' (the scale that makes it exactly the reference). Metres
 * for a body without bones (length 0 or not finite).
 */
export function unitForBodyLength(length: number): { unit: BvhUnit; scale: number } {
  if (!(length > 0 && Number.isFinite(length))) return { unit: 'm', scale: 1 };
  let unit: Exclude<BvhUnit, 'fit'> = 'm', best = Infinity;
  for (const u of ['m', 'cm', 'mm', 'in'] as const) {
    const d = Math.abs(Math.log((length * BVH_UNIT_SCALES[u]) / BVH_REFERENCE_LENGTH));
    if (d < best) { best = d; unit = u; }
  }
  return best <= Math.log(BVH_UNIT_TOLERANCE) ? { unit, scale: BVH_UNIT_SCALES[unit] } : { unit: 'fit', scale: BVH_REFERENCE_LENGTH / length };
}

/**
 * The body's length in file units, from its proportions: the longest path along its bones between
 * two of its ends (joints or end sites), which for a person is the head to a foot, or the span of
 * the arms: about their height whatever pose a frame holds (a clip that starts crouched, or in a
 * T-pose, measures the same). Bone lengths are the OFFSETs below the body's first branching joint
 * (bodyJoints), so a ground "reference" root or a hips OFFSET that holds the clip's start position
 * counts for nothing. 0 for a body without bones.
 */
export function bodyLength(h: BvhHierarchy): number {
  const { parents, endSiteParents: esParents } = h;
  const J = parents.length;
  if (J === 0) return 0;
  const inBody = bodyJoints(parents, esParents);
  const len = (o: ArrayLike<number>, i: number) => Math.hypot(o[3 * i], o[3 * i + 1], o[3 * i + 2]);
  // The longest path down from each joint; the longest through it joins its two longest child paths.
  const down = new Float64Array(J), second = new Float64Array(J);
  const offer = (p: number, d: number) => {
    if (d > down[p]) { second[p] = down[p]; down[p] = d; } else if (d > second[p]) second[p] = d;
  };
  for (let e = 0; e < esParents.length; e++) if (inBody[esParents[e]]) offer(esParents[e], len(h.endSiteOffsets, e));
  let longest = 0;
  // Children come after their parents in file order: walk backwards, every child finished first.
  for (let j = J - 1; j >= 0; j--) {
    if (!inBody[j]) continue;
    longest = Math.max(longest, down[j] + second[j]);
    const p = parents[j];
    if (p >= 0 && inBody[p]) offer(p, down[j] + len(h.offsets, j));
  }
  return longest;
}

/** 1 for the joints of the body (the subtree of the first joint with several children), else 0. */
function bodyJoints(parents: readonly number[], esParents: readonly number[]): Uint8Array {
  const J = parents.length;
  const childCount = new Int32Array(J);
  for (let j = 1; j < J; j++) childCount[parents[j]]++;
  for (const p of esParents) childCount[p]++;
  let body = 0;
  while (childCount[body] === 1) {
    const next = parents.indexOf(body, body + 1);
    if (next < 0) break; // the single child is an end site
    body = next;
  }
  if (childCount[body] <= 1) body = 0; // a plain chain: measure everything
  const inBody = new Uint8Array(J);
  inBody[body] = 1;
  for (let j = body + 1; j < J; j++) inBody[j] = inBody[parents[j]];
  return inBody;
}

/** Multiplies every length (translations, joint and end-site offsets) by `scale` metres per unit, in place. */
export function scaleToMetres(scale: number, poses: BvhPoses, offsets: Float64Array, endSiteOffsets: number[]): void {
  if (scale === 1) return;
  const t = poses.translations;
  for (let i = 0; i < t.length; i++) t[i] *= scale;
  for (let i = 0; i < offsets.length; i++) offsets[i] *= scale;
  for (let i = 0; i < endSiteOffsets.length; i++) endSiteOffsets[i] *= scale;
}
