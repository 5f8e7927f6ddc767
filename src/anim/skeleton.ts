/**
 * A joint hierarchy over flat arrays. Joints are stored parents-first (parents[i] < i), which lets
 * forward kinematics run as one forward loop.
 */
export interface Skeleton {
  /** Joint names, unique. */
  readonly names: readonly string[];
  /** Parent index per joint, -1 for the root (exactly one root, index 0). */
  readonly parents: Int32Array;
  /** Rest local translation per joint (3 per joint, metres). */
  readonly offsets: Float64Array;
  /** End sites: parent joint index per end site. */
  readonly endSiteParents: Int32Array;
  /** End-site offsets (3 per end site, metres) in the parent's frame. */
  readonly endSiteOffsets: Float64Array;
}

export function jointCount(s: Skeleton): number {
  return s.names.length;
}

export function jointIndex(s: Skeleton, name: string): number {
  return s.names.indexOf(name);
}

/** Throws when the arrays disagree in length or the parents are not in parents-first order. */
export function validateSkeleton(s: Skeleton): void {
  const n = s.names.length;
  if (n === 0) throw new RangeError('skeleton has no joints');
  if (s.parents.length !== n) throw new RangeError(`skeleton parents length ${s.parents.length} != ${n} joints`);
  if (s.offsets.length !== 3 * n) throw new RangeError(`skeleton offsets length ${s.offsets.length} != 3 * ${n}`);
  if (s.parents[0] !== -1) throw new RangeError('skeleton joint 0 must be the root (parent -1)');
  for (let i = 1; i < n; i++) {
    const p = s.parents[i];
    if (p < 0 || p >= i) throw new RangeError(`skeleton joint ${i} (${s.names[i]}) has parent ${p}: joints must be stored parents-first with one root`);
  }
  if (new Set(s.names).size !== n) throw new RangeError('skeleton joint names must be unique');
  if (s.endSiteOffsets.length !== 3 * s.endSiteParents.length) throw new RangeError('skeleton end-site arrays disagree in length');
  for (let i = 0; i < s.endSiteParents.length; i++) {
    const p = s.endSiteParents[i];
    if (p < 0 || p >= n) throw new RangeError(`end site ${i} has invalid parent ${p}`);
  }
  for (let i = 0; i < s.offsets.length; i++) if (!Number.isFinite(s.offsets[i])) throw new RangeError(`skeleton offset ${i} is not finite`);
}
