/**
 * One skeleton per database. Exporters list a rig's children in different orders from file to
 * file (same joints, same parents), so clips are matched by joint name and reordered to the first
 * file's order; only a truly different skeleton is refused, with what differs.
 */
import type { Clip } from '../anim/clip.js';
import type { Skeleton } from '../anim/skeleton.js';
import { DatabaseBuildError } from './build-error.js';

/** Names listed in a difference at most; the rest are counted. */
const MAX_NAMES_LISTED = 4;

interface Motion {
  skeleton: Skeleton;
  clip: Clip;
}

function briefly(names: readonly string[]): string {
  const more = names.length - MAX_NAMES_LISTED;
  return names.slice(0, MAX_NAMES_LISTED).join(', ') + (more > 0 ? ` and ${more.toLocaleString('en-US')} more` : '');
}

function parentName(s: Skeleton, j: number): string {
  const p = s.parents[j];
  return p >= 0 ? s.names[p] : '(root)';
}

/**
 * Where each joint of `ref` sits in `other` (perm[refJoint] = otherJoint), when both have the same
 * joint names with the same parents; otherwise a compact description of the difference.
 */
export function matchJointsByName(ref: Skeleton, other: Skeleton): { perm: Int32Array } | { difference: string } {
  const index = new Map<string, number>();
  other.names.forEach((n, i) => index.set(n, i));
  const refNames = new Set(ref.names);
  const missing = ref.names.filter((n) => !index.has(n));
  const extra = other.names.filter((n) => !refNames.has(n));
  const moved: string[] = [];
  const perm = new Int32Array(ref.names.length);
  ref.names.forEach((n, j) => {
    const k = index.get(n);
    if (k === undefined) return;
    perm[j] = k;
    if (parentName(ref, j) !== parentName(other, k)) moved.push(`${n} (under ${parentName(other, k)} here, ${parentName(ref, j)} there)`);
  });
  if (missing.length === 0 && extra.length === 0 && moved.length === 0) return { perm };
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing here: ${briefly(missing)}`);
  if (extra.length > 0) parts.push(`extra here: ${briefly(extra)}`);
  if (moved.length > 0) parts.push(`different parent: ${briefly(moved)}`);
  return { difference: parts.join('; ') };
}

/** The clip with its joints reordered: joint j of the result is joint perm[j] of `clip`. */
export function reorderClipJoints(clip: Clip, perm: Int32Array): Clip {
  const J = perm.length, F = clip.frameCount;
  const rot = new Float64Array(F * J * 4), pos = new Float64Array(F * J * 3);
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const k = perm[j];
      rot.set(clip.rotations.subarray((f * J + k) * 4, (f * J + k) * 4 + 4), (f * J + j) * 4);
      pos.set(clip.translations.subarray((f * J + k) * 3, (f * J + k) * 3 + 3), (f * J + j) * 3);
    }
  }
  return { ...clip, rotations: rot, translations: pos };
}

function isIdentity(perm: Int32Array): boolean {
  for (let j = 0; j < perm.length; j++) if (perm[j] !== j) return false;
  return true;
}

/**
 * Every source on the first source's skeleton: clips whose files list the same joints in another
 * order are reordered to the first file's joint order (rest OFFSETs may differ: each clip's own
 * translations carry them). Throws DatabaseBuildError naming both files and what differs when a
 * skeleton has other joints or other parents.
 */
export function alignToFirstSkeleton<T extends Motion>(sources: readonly T[]): T[] {
  const ref = sources[0].skeleton;
  return sources.map((s, i) => {
    if (i === 0) return s;
    const m = matchJointsByName(ref, s.skeleton);
    if ('difference' in m) {
      throw new DatabaseBuildError(
        `${s.clip.source}: its skeleton differs from ${sources[0].clip.source}'s (${m.difference}); ` +
        'a database holds one skeleton: build separate databases or retarget first',
      );
    }
    return isIdentity(m.perm) ? s : { ...s, skeleton: ref, clip: reorderClipJoints(s.clip, m.perm) };
  });
}
