/**
 * The legs of a skeleton found from its shape alone, for rigs whose names say nothing useful
 * ("Bone.003"): in the rest pose a leg is a chain that hangs from the hips far below them, its
 * foot is the last joint reached by a bone pointing mostly down (thigh, knee, foot: at least the
 * third joint of the chain), and its toe, when there is one, points forward from the foot.
 *
 * BVH rest poses have identity rotations, so rest positions are the sums of the offsets.
 */
import type { Skeleton } from '../anim/skeleton.js';

/** Smallest drop below the hips (fraction of the skeleton's rest height) that makes a branch a leg. */
const LEG_DROP_FRACTION = 0.25;

/** World rest positions (3 per joint): offsets accumulated from the root. */
export function restPositions(s: Skeleton): Float64Array {
  const J = s.names.length;
  const out = new Float64Array(3 * J);
  for (let j = 0; j < J; j++) {
    const p = s.parents[j];
    for (let d = 0; d < 3; d++) out[3 * j + d] = (p >= 0 ? out[3 * p + d] : 0) + s.offsets[3 * j + d];
  }
  return out;
}

/** Child joints of every joint. */
export function childLists(s: Skeleton): number[][] {
  const out: number[][] = s.names.map(() => []);
  for (let j = 1; j < s.names.length; j++) out[s.parents[j]].push(j);
  return out;
}

/**
 * What the leg search needs about every joint, computed once in O(joints): its children, the
 * lowest rest height in its subtree, the child through which that lowest point is reached, and
 * the length of the chain down to it.
 */
export interface SkeletonShape {
  rest: Float64Array;
  children: number[][];
  /** Lowest rest height (y) within the joint's subtree. */
  low: Float64Array;
  /** The child whose subtree reaches lowest, or -1 for a leaf. */
  lowestChild: Int32Array;
  /** Joints on the chain from the joint down through lowestChild to a leaf. */
  chainLength: Int32Array;
  /** Drop below a joint that makes a branch a leg (a fraction of the rest height). */
  minLegDrop: number;
  depth: Int32Array;
}

export function skeletonShape(s: Skeleton): SkeletonShape {
  const J = s.names.length;
  const rest = restPositions(s);
  const children = childLists(s);
  const low = new Float64Array(J), lowestChild = new Int32Array(J).fill(-1), chainLength = new Int32Array(J).fill(1);
  for (let j = 0; j < J; j++) low[j] = rest[3 * j + 1];
  // Parents come first, so a backward pass finishes every child before its parent (ties go to
  // the first child).
  for (let j = J - 1; j >= 0; j--) {
    const c = lowestChild[j];
    if (c >= 0) chainLength[j] = chainLength[c] + 1;
    const p = s.parents[j];
    if (p < 0) continue;
    if (lowestChild[p] < 0 || low[j] <= low[lowestChild[p]]) lowestChild[p] = j;
    if (low[j] < low[p]) low[p] = low[j];
  }
  let lo = Infinity, hi = -Infinity;
  for (let j = 0; j < J; j++) { lo = Math.min(lo, rest[3 * j + 1]); hi = Math.max(hi, rest[3 * j + 1]); }
  const depth = new Int32Array(J);
  for (let j = 1; j < J; j++) depth[j] = depth[s.parents[j]] + 1;
  return { rest, children, low, lowestChild, chainLength, minLegDrop: LEG_DROP_FRACTION * (hi - lo), depth };
}

/** True when child branch c of joint j is a leg: it hangs far enough below j, with thigh, knee and foot. */
function isLegBranch(shape: SkeletonShape, j: number, c: number): boolean {
  return shape.minLegDrop > 0 && shape.rest[3 * j + 1] - shape.low[c] >= shape.minLegDrop && shape.chainLength[c] >= 3;
}

/** The chain from `start` down through the lowest-reaching children to a leaf. */
function lowestChain(shape: SkeletonShape, start: number): number[] {
  const chain = [start];
  for (let j = shape.lowestChild[start]; j >= 0; j = shape.lowestChild[j]) chain.push(j);
  return chain;
}

/**
 * The leg chains below `hips`: the child branches that reach at least a quarter of the skeleton's
 * height below the hips and hold three joints or more (thigh, knee, foot). Returns the two that
 * reach lowest.
 */
export function legChainsBelow(shape: SkeletonShape, hips: number): number[][] {
  return shape.children[hips]
    .filter((c) => isLegBranch(shape, hips, c))
    .sort((a, b) => shape.low[a] - shape.low[b] || a - b)
    .slice(0, 2)
    .map((c) => lowestChain(shape, c));
}

/** The deepest joint with two leg branches below it (see legChainsBelow), or -1. */
export function hipsByShape(shape: SkeletonShape): number {
  let best = -1;
  for (let j = 0; j < shape.children.length; j++) {
    let legs = 0;
    for (const c of shape.children[j]) if (isLegBranch(shape, j, c)) legs++;
    if (legs >= 2 && (best < 0 || shape.depth[j] > shape.depth[best])) best = j;
  }
  return best;
}

/** True when the bone from joint a to joint b points more down than sideways in the rest pose. */
function pointsDown(rest: Float64Array, a: number, b: number): boolean {
  const dx = rest[3 * b] - rest[3 * a], dy = rest[3 * b + 1] - rest[3 * a + 1], dz = rest[3 * b + 2] - rest[3 * a + 2];
  return -dy > Math.hypot(dx, dz);
}

/**
 * Index within `chain` of the foot: the last joint reached by a bone pointing mostly down, at
 * the third joint or below; the third joint when no bone below it points down; -1 for chains
 * shorter than three joints.
 */
export function footIndexOnChain(rest: Float64Array, chain: readonly number[]): number {
  if (chain.length < 3) return -1;
  let foot = 2;
  for (let i = 3; i < chain.length; i++) if (pointsDown(rest, chain[i - 1], chain[i])) foot = i;
  return foot;
}

/**
 * Which of two leg chains is the left one (0 or 1), from the rest pose: the character faces where
 * its toes point (the joint after each foot), else +Z; with Y up, its left is up x forward.
 */
export function leftChainIndex(rest: Float64Array, chains: readonly (readonly number[])[], feet: readonly number[]): number {
  let fx = 0, fz = 0;
  for (let k = 0; k < 2; k++) {
    const i = feet[k];
    if (i + 1 >= chains[k].length) continue;
    const f = chains[k][i], t = chains[k][i + 1];
    fx += rest[3 * t] - rest[3 * f]; fz += rest[3 * t + 2] - rest[3 * f + 2];
  }
  if (Math.hypot(fx, fz) < 1e-9) { fx = 0; fz = 1; }
  // left = up x forward = (fz, 0, -fx); the thigh and the foot both lie on their side.
  const side = (k: number): number => {
    const a = chains[k][0], f = chains[k][feet[k]];
    return (rest[3 * a] + rest[3 * f]) * fz - (rest[3 * a + 2] + rest[3 * f + 2]) * fx;
  };
  return side(0) >= side(1) ? 0 : 1;
}

/** Cosine of the largest angle between two segments of one bone (a split thigh or shin): 10 degrees. */
const SAME_BONE_COS = Math.cos((10 * Math.PI) / 180);

/**
 * Where a leg bends: its knee and hip on the chain from the hips down to `foot`. Mostly the foot's
 * parent and grandparent, but a thigh or shin may be split into segments in the chain (Daz's
 * lThighBend -> lThighTwist -> lShin, Rigify's thigh -> thigh.001 -> shin -> shin.001 -> foot),
 * and a link may lead from the hips to the hip socket (CMU's LHipJoint). The knee is the chain joint
 * nearest halfway down the chain's rest length (the thigh and the shin are about equally long;
 * rest poses often have straight legs, so no angle tells); the hip is the highest joint above the
 * knee from which the chain runs straight to the knee in the rest pose (a pelvis link turns off at
 * the hip socket). Bent there, a leg whose shin is split folded in the middle of the shin.
 */
export function legBendJoints(s: Skeleton, hips: number, foot: number): { hip: number; knee: number } {
  const parents = s.parents, chain: number[] = [];
  for (let j = foot; j >= 0 && j !== hips && chain.length <= parents.length; j = parents[j]) chain.unshift(j);
  const direct = { knee: parents[foot], hip: parents[foot] >= 0 ? parents[parents[foot]] : -1 };
  if (chain.length <= 3 || chain[0] === foot || parents[chain[0]] !== hips) return direct;
  const rest = restPositions(s), n = chain.length;
  const gap = (a: number, b: number) => Math.hypot(rest[3 * b] - rest[3 * a], rest[3 * b + 1] - rest[3 * a + 1], rest[3 * b + 2] - rest[3 * a + 2]);
  const along = [0];
  for (let i = 1; i < n; i++) along.push(along[i - 1] + gap(chain[i - 1], chain[i]));
  let k = 1;
  for (let i = 2; i < n - 1; i++) if (Math.abs(along[i] - along[n - 1] / 2) < Math.abs(along[k] - along[n - 1] / 2)) k = i;
  let h = k - 1;
  while (h > 0 && sameBone(rest, chain[h - 1], chain[h], chain[k], along[n - 1])) h--;
  return { hip: chain[h], knee: chain[k] };
}

/**
 * Whether the segment a -> b runs on in the direction b -> c: b is part of the bone from a. A joint
 * at its parent's place (a -> b of no length) is not: the bend stays at the lower of the two, which
 * turns about the same point.
 */
function sameBone(rest: Float64Array, a: number, b: number, c: number, scale: number): boolean {
  const ux = rest[3 * b] - rest[3 * a], uy = rest[3 * b + 1] - rest[3 * a + 1], uz = rest[3 * b + 2] - rest[3 * a + 2];
  const vx = rest[3 * c] - rest[3 * b], vy = rest[3 * c + 1] - rest[3 * b + 1], vz = rest[3 * c + 2] - rest[3 * b + 2];
  const lu = Math.hypot(ux, uy, uz), lv = Math.hypot(vx, vy, vz);
  if (!(lu > 1e-6 * scale && lv > 0)) return false;
  return (ux * vx + uy * vy + uz * vz) / (lu * lv) > SAME_BONE_COS;
}
