/**
 * The same captures on a rig with fewer joints: leaf joints matching a pattern (e.g. the toes) are
 * removed, their end sites moved up to the parent (offset by the removed joint's rest offset), the
 * other joints' motion unchanged. What a user whose rig has no toe joints brings.
 */
import type { SourceMotion } from '../../src/database/build.js';
import type { Skeleton } from '../../src/anim/skeleton.js';

export function withoutLeafJoints(sources: readonly SourceMotion[], pattern: RegExp): SourceMotion[] {
  // Each source keeps its own skeleton (files of one rig may differ in their offsets).
  return sources.map((source) => withoutLeafJointsOne(source, pattern));
}

function withoutLeafJointsOne({ skeleton: sk, clip }: SourceMotion, pattern: RegExp): SourceMotion {
  const J = sk.names.length;
  const isParent = new Uint8Array(J);
  for (let j = 0; j < J; j++) if (sk.parents[j] >= 0) isParent[sk.parents[j]] = 1;
  const drop = new Set(sk.names.flatMap((n, j) => (pattern.test(n) && !isParent[j] && sk.parents[j] >= 0 ? [j] : [])));
  if (drop.size === 0) throw new Error(`withoutLeafJoints: no leaf joint matches ${pattern}`);
  const keep = [...Array(J).keys()].filter((j) => !drop.has(j)), index = new Map(keep.map((j, i) => [j, i]));
  const endParents: number[] = [], endOffsets: number[] = [];
  for (let e = 0; e < sk.endSiteParents.length; e++) {
    const p = sk.endSiteParents[e], gone = drop.has(p);
    endParents.push(index.get(gone ? sk.parents[p] : p)!);
    for (let k = 0; k < 3; k++) endOffsets.push(sk.endSiteOffsets[3 * e + k] + (gone ? sk.offsets[3 * p + k] : 0));
  }
  const skeleton: Skeleton = {
    names: keep.map((j) => sk.names[j]),
    parents: Int32Array.from(keep, (j) => (sk.parents[j] < 0 ? -1 : index.get(sk.parents[j])!)),
    offsets: Float64Array.from(keep.flatMap((j) => [sk.offsets[3 * j], sk.offsets[3 * j + 1], sk.offsets[3 * j + 2]])),
    endSiteParents: Int32Array.from(endParents),
    endSiteOffsets: Float64Array.from(endOffsets),
  };
  const K = keep.length, F = clip.frameCount, rotations = new Float64Array(F * K * 4), translations = new Float64Array(F * K * 3);
  for (let f = 0; f < F; f++) {
    keep.forEach((j, i) => {
      rotations.set(clip.rotations.subarray((f * J + j) * 4, (f * J + j) * 4 + 4), (f * K + i) * 4);
      translations.set(clip.translations.subarray((f * J + j) * 3, (f * J + j) * 3 + 3), (f * K + i) * 3);
    });
  }
  return { skeleton, clip: { ...clip, rotations, translations } };
}

/**
 * The same captures on a rig whose bone above joint `child` is split in two: a joint named `name`
 * is inserted between `child` and its parent, `share` of the way down, with the identity rotation
 * (Daz's lThighTwist, Rigify's shin.001; with share 1, a link at the child's place, as CMU's
 * LHipJoint sits above the thigh). Every other joint moves exactly as before.
 */
export function withSplitBone(sources: readonly SourceMotion[], child: string, name: string, share: number): SourceMotion[] {
  return sources.map(({ skeleton: sk, clip }) => {
    const J = sk.names.length, at = sk.names.indexOf(child);
    if (at < 0) throw new Error(`withSplitBone: no joint ${child}`);
    // The new joint takes index `at`; every joint from `at` on moves down by one (parents stay first).
    const moved = (j: number): number => (j >= at ? j + 1 : j);
    const names = [...sk.names.slice(0, at), name, ...sk.names.slice(at)];
    const parents = new Int32Array(J + 1), offsets = new Float64Array(3 * (J + 1));
    for (let j = 0; j < J; j++) {
      parents[moved(j)] = sk.parents[j] < 0 ? -1 : moved(sk.parents[j]);
      for (let k = 0; k < 3; k++) offsets[3 * moved(j) + k] = sk.offsets[3 * j + k];
    }
    parents[at] = moved(sk.parents[at]);
    parents[at + 1] = at;
    for (let k = 0; k < 3; k++) { offsets[3 * at + k] = share * sk.offsets[3 * at + k]; offsets[3 * (at + 1) + k] = (1 - share) * sk.offsets[3 * at + k]; }
    const F = clip.frameCount, rotations = new Float64Array(F * (J + 1) * 4), translations = new Float64Array(F * (J + 1) * 3);
    for (let f = 0; f < F; f++) {
      for (let j = 0; j < J; j++) {
        rotations.set(clip.rotations.subarray((f * J + j) * 4, (f * J + j) * 4 + 4), (f * (J + 1) + moved(j)) * 4);
        translations.set(clip.translations.subarray((f * J + j) * 3, (f * J + j) * 3 + 3), (f * (J + 1) + moved(j)) * 3);
      }
      rotations[(f * (J + 1) + at) * 4 + 3] = 1;
      for (let k = 0; k < 3; k++) {
        const t = clip.translations[(f * J + at) * 3 + k];
        translations[(f * (J + 1) + at) * 3 + k] = share * t;
        translations[(f * (J + 1) + at + 1) * 3 + k] = (1 - share) * t;
      }
    }
    const skeleton: Skeleton = { names, parents, offsets, endSiteParents: Int32Array.from(sk.endSiteParents, moved), endSiteOffsets: sk.endSiteOffsets };
    return { skeleton, clip: { ...clip, rotations, translations } };
  });
}

/**
 * The same captures with a joint at the place of `leftThigh`'s parent that holds both thighs, beside
 * the rest of the body (Daz Genesis' pelvis under `hip`): it becomes the hips role (the feet's
 * deepest common ancestor), while the joint above it carries the body.
 */
export function withLegsPelvis(sources: readonly SourceMotion[], leftThigh: string, rightThigh: string, name: string): SourceMotion[] {
  return withSplitBone(sources, leftThigh, name, 0).map(({ skeleton, clip }) => {
    const pelvis = skeleton.names.indexOf(name), right = skeleton.names.indexOf(rightThigh);
    if (right < pelvis) throw new Error('withLegsPelvis: the right thigh must come after the left');
    return { skeleton: { ...skeleton, parents: Int32Array.from(skeleton.parents, (p, j) => (j === right ? pelvis : p)) }, clip };
  });
}
