/**
 * Units of a BVH file. BVH does not say whether it counts in metres, centimetres, millimetres or
 * inches; the standing height of the figure in its first frame does.
 */
import { forwardKinematics } from '../../anim/pose.js';
import { quatRotateVec3 } from '../../math/quat.js';
import type { BvhHierarchy } from './hierarchy.js';
import type { BvhPoses } from './frames.js';

export type BvhUnit = 'm' | 'cm' | 'mm' | 'in';

/** Metres per file unit for the units that `scale: 'auto'` can detect. */
export const BVH_UNIT_SCALES: Readonly<Record<BvhUnit, number>> = { m: 1, cm: 0.01, mm: 0.001, in: 0.0254 };

/** Height (m) that unit detection aims for: the unit whose scaled skeleton extent is closest to it (in log terms) wins. */
export const BVH_REFERENCE_HEIGHT = 1.75;

/**
 * The unit that brings a figure `height` file units tall closest to BVH_REFERENCE_HEIGHT (in log
 * terms); metres when the height is zero or not finite.
 */
export function unitForHeight(height: number): BvhUnit {
  let unit: BvhUnit = 'm';
  if (height > 0 && Number.isFinite(height)) {
    let best = Infinity;
    for (const u of ['m', 'cm', 'mm', 'in'] as const) {
      const d = Math.abs(Math.log(height * BVH_UNIT_SCALES[u] / BVH_REFERENCE_HEIGHT));
      if (d < best) { best = d; unit = u; }
    }
  }
  return unit;
}

/**
 * Height of the standing figure in file units: the extent (max over axes of max - min) of the first
 * frame's world positions of the body's joints and end sites. The body is the subtree of the first
 * joint that branches (has several children): single-child nodes above it, such as a ground
 * "reference" root that stays at the origin while the character starts metres away (real mocap
 * exports do this), are left out. A skeleton that never branches is measured whole.
 */
export function standingHeight(h: BvhHierarchy, poses: BvhPoses): number {
  const { parents, endSiteParents: esParents } = h;
  const rot = poses.rotations, pos = poses.translations;
  const J = parents.length;
  if (J === 0 || rot.length < 4 * J) return 0;
  const inBody = bodyJoints(parents, esParents);

  const par = Int32Array.from(parents);
  const wr = new Float64Array(4 * J), wp = new Float64Array(3 * J);
  forwardKinematics(par, rot, 0, pos, 0, wr, wp);
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const acc = (a: ArrayLike<number>, o: number): void => {
    for (let d = 0; d < 3; d++) { const v = a[o + d]; if (v < lo[d]) lo[d] = v; if (v > hi[d]) hi[d] = v; }
  };
  for (let j = 0; j < J; j++) if (inBody[j]) acc(wp, 3 * j);
  const tmp = new Float64Array(3);
  const eo = Float64Array.from(h.endSiteOffsets);
  for (let e = 0; e < esParents.length; e++) {
    const pj = esParents[e];
    if (!inBody[pj]) continue;
    quatRotateVec3(tmp, 0, wr, 4 * pj, eo, 3 * e);
    tmp[0] += wp[3 * pj]; tmp[1] += wp[3 * pj + 1]; tmp[2] += wp[3 * pj + 2];
    acc(tmp, 0);
  }
  return Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
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
