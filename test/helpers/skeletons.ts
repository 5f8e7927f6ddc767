import type { Skeleton } from '../../src/anim/skeleton.js';

/** A skeleton from [name, parentName | null, offset?] rows (parents listed first). */
export function skeletonFrom(rows: Array<[string, string | null, [number, number, number]?]>): Skeleton {
  const names = rows.map((r) => r[0]);
  const parents = new Int32Array(rows.map((r) => (r[1] === null ? -1 : names.indexOf(r[1]))));
  const offsets = new Float64Array(rows.flatMap((r) => r[2] ?? [0, 0.1, 0]));
  return { names, parents, offsets, endSiteParents: new Int32Array(0), endSiteOffsets: new Float64Array(0) };
}

/** A small two-legged skeleton; `side` decides whether left/right differ along x or along z in the rest pose. */
export function bipedSkeleton(sideAxis: 0 | 2 = 0, names = ['root', 'Hips', 'Spine', 'UpperLeg_L', 'LowerLeg_L', 'Foot_L', 'Toes_L', 'UpperLeg_R', 'LowerLeg_R', 'Foot_R', 'Toes_R']): Skeleton {
  // sideAxis 2 is the same skeleton turned a quarter about y: left/right along z, forward along x.
  const side = (s: number): [number, number, number] => [0.1 * s, -0.05, 0.01];
  const [root, hips, spine, ul, ll, fl, tl, ur, lr, fr, tr] = names;
  const sk = skeletonFrom([
    [root, null, [0, 0, 0]],
    [hips, root, [0, 0.9, 0]],
    [spine, hips, [0, 0.2, 0.02]],
    [ul, hips, side(1)],
    [ll, ul, [0, -0.42, 0.01]],
    [fl, ll, [0, -0.4, -0.02]],
    [tl, fl, [0, -0.05, 0.12]],
    [ur, hips, side(-1)],
    [lr, ur, [0, -0.42, 0.01]],
    [fr, lr, [0, -0.4, -0.02]],
    [tr, fr, [0, -0.05, 0.12]],
  ]);
  if (sideAxis === 2) {
    for (let j = 0; j < sk.names.length; j++) {
      const x = sk.offsets[3 * j];
      sk.offsets[3 * j] = sk.offsets[3 * j + 2];
      sk.offsets[3 * j + 2] = x;
    }
  }
  return sk;
}
