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
