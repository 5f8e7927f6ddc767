/**
 * Where a skeleton's upper body starts: the joint that orientation warping turns first
 * (runtime/controller/upper-body-twist.ts) and upper-body overlay masks hang from
 * (runtime/overlay/bone-mask.ts), one rule for both.
 */
import type { Skeleton } from '../anim/skeleton.js';
import { mirrorJointMap } from './bone-names.js';

/**
 * The first joint of the upper body: the hips' child that does not lead to a foot and carries the
 * largest subtree (the spine, with the arms and head below it), preferring a joint without a
 * left/right counterpart. Where the hips joint holds only the legs (Daz Genesis' pelvis, under `hip`
 * beside the spine) the search goes up to the joint the spine hangs from, leaving the hips' branch
 * out: from the pelvis itself it found nothing, and the upper body never turned (strafe facing 15.6°
 * against 12.2 on the shared captures so rigged). -1 when there is no such joint.
 */
export function upperBodyRoot(skeleton: Skeleton, roles: { readonly hips: number; readonly leftFoot: number; readonly rightFoot: number }): number {
  const parents = skeleton.parents, J = parents.length;
  const size = new Int32Array(J).fill(1);
  for (let j = J - 1; j > 0; j--) if (parents[j] >= 0) size[parents[j]] += size[j];
  let at = roles.hips;
  if (at < 0) return -1;
  const left = new Set<number>();
  for (const foot of [roles.leftFoot, roles.rightFoot]) {
    let j = foot;
    while (j >= 0 && parents[j] !== at) j = parents[j];
    if (j >= 0) left.add(j);
  }
  const spineBelow = (a: number): boolean => { for (let j = 0; j < J; j++) if (parents[j] === a && !left.has(j)) return true; return false; };
  while (!spineBelow(at) && parents[at] >= 0) { left.add(at); at = parents[at]; }
  const partner = mirrorJointMap(skeleton.names);
  let best = -1;
  for (let j = 0; j < J; j++) {
    if (parents[j] !== at || left.has(j)) continue;
    const centred = partner[j] === j;
    if (best < 0 || (centred !== (partner[best] === best) ? centred : size[j] > size[best])) best = j;
  }
  return best;
}
