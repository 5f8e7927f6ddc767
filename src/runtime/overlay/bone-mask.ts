/**
 * Bone masks: how much a layer over the base motion (an overlay, overlay/overlay.ts) takes over each joint,
 * as one weight per joint in [0, 1]. Masks are built from joint subtrees by name (everything from
 * the spine up), with an optional falloff over a subtree's first joints so that the base motion
 * hands over to the layer gradually along the spine; from the bone roles (the upper body, the arms);
 * or from explicit weights by joint name. Unknown joint names are errors that name them.
 */
import type { Skeleton } from '../../anim/skeleton.js';
import type { BoneRole } from '../../features/schema.js';
import { listJointsBriefly, mirrorJointMap } from '../../features/roles.js';
import { upperBodyRoot as upperBodyRootOf } from '../../features/upper-body.js';

/** A weight per joint; what a layer edits and by how much. */
export interface BoneMask {
  /** Weight per joint (J), each in [0, 1]: 0 leaves the joint to the base motion. */
  readonly weights: Float64Array;
  /** The joints with a weight above zero, in joint order (parents before children). */
  readonly joints: Int32Array;
  /** The joint names of the skeleton the mask was made for (a mask fits only that skeleton). */
  readonly jointNames: readonly string[];
  /** A short description for messages and reports, e.g. "upper body (Spine) falloff 2". */
  readonly label: string;
}

/** What masks are built from: a skeleton and, for the role-based masks, its bone roles (a Database is both). */
export interface MaskRig {
  readonly skeleton: Skeleton;
  readonly roles: Readonly<Record<BoneRole, number>>;
}

/** A mask that cannot be built: unknown joints, bad weights, a bad specification. One line. */
export class BoneMaskError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'BoneMaskError';
  }
}

export interface SubtreeMaskOptions {
  /**
   * Joints over which the weight ramps up from the subtree's root: the root gets 1/(n+1), the next
   * joint down 2/(n+1), ..., and joints n or more levels below the root 1. Default 0 (all 1).
   */
  falloff?: number;
  /** Subtrees left out (weight 0), by joint name. */
  exclude?: readonly string[];
  /** Description for messages (default: the root names). */
  label?: string;
}

/** The indices of `names` in the skeleton; throws one error naming every unknown name. */
export function jointIndicesByName(skeleton: Skeleton, names: readonly string[], what = 'bone mask'): number[] {
  const unknown = names.filter((n) => !skeleton.names.includes(n));
  if (unknown.length > 0) {
    const list = unknown.map((n) => `'${n}'`).join(', ');
    throw new BoneMaskError(`${what}: no joint named ${list} in this skeleton (joints: ${listJointsBriefly(skeleton.names, 12)})`);
  }
  return names.map((n) => skeleton.names.indexOf(n));
}

function requireFalloff(falloff: number, what: string): void {
  if (!(Number.isInteger(falloff) && falloff >= 0 && falloff <= 64)) {
    throw new BoneMaskError(`${what}: falloff must be an integer number of joints in [0, 64], got ${String(falloff)}`);
  }
}

/** The mask over finished weights (validated: finite, in [0, 1], one per joint). */
export function boneMaskFromWeightArray(skeleton: Skeleton, weights: ArrayLike<number>, label = 'custom'): BoneMask {
  const J = skeleton.names.length;
  if (weights.length !== J) throw new BoneMaskError(`bone mask: ${weights.length} weights for a skeleton of ${J} joints`);
  const w = new Float64Array(J);
  const joints: number[] = [];
  for (let j = 0; j < J; j++) {
    const v = weights[j];
    if (!(v >= 0 && v <= 1)) throw new BoneMaskError(`bone mask: the weight of ${skeleton.names[j]} must be in [0, 1], got ${String(v)}`);
    w[j] = v;
    if (v > 0) joints.push(j);
  }
  return { weights: w, joints: Int32Array.from(joints), jointNames: skeleton.names, label };
}

/** A mask from explicit weights by joint name (joints not named get 0). */
export function boneMaskFromWeights(skeleton: Skeleton, weights: Readonly<Record<string, number>>, label?: string): BoneMask {
  const names = Object.keys(weights);
  const at = jointIndicesByName(skeleton, names);
  const w = new Float64Array(skeleton.names.length);
  names.forEach((n, i) => { w[at[i]] = weights[n]; });
  return boneMaskFromWeightArray(skeleton, w, label ?? names.map((n) => `${n}=${weights[n]}`).join(','));
}

/**
 * Every joint at or below the named `roots`, with the falloff of `options` counted from each root
 * (a joint below two roots takes the larger weight), minus the `exclude` subtrees.
 */
export function boneMaskFromSubtree(skeleton: Skeleton, roots: string | readonly string[], options: SubtreeMaskOptions = {}): BoneMask {
  const rootNames = typeof roots === 'string' ? [roots] : [...roots];
  if (rootNames.length === 0) throw new BoneMaskError('bone mask: name at least one joint whose subtree the mask covers');
  const falloff = options.falloff ?? 0;
  requireFalloff(falloff, 'bone mask');
  const rootIdx = jointIndicesByName(skeleton, rootNames);
  const excluded = jointIndicesByName(skeleton, options.exclude ?? [], 'bone mask exclude');
  return subtreeMask(skeleton, rootIdx, falloff, excluded, options.label ?? `${rootNames.join(',')}${falloff > 0 ? ` falloff ${falloff}` : ''}`);
}

function subtreeMask(skeleton: Skeleton, roots: readonly number[], falloff: number, excluded: readonly number[], label: string): BoneMask {
  const parents = skeleton.parents, J = parents.length;
  // Levels below the nearest root (-1: not below any root); parents come first, so one pass does it.
  const level = new Int32Array(J).fill(-1);
  const cut = new Uint8Array(J);
  for (const e of excluded) cut[e] = 1;
  const isRoot = new Uint8Array(J);
  for (const r of roots) isRoot[r] = 1;
  const w = new Float64Array(J);
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    if (p >= 0 && cut[p]) cut[j] = 1;
    if (p >= 0 && level[p] >= 0) level[j] = level[p] + 1; // below a root: the larger weight
    else if (isRoot[j]) level[j] = 0;
    if (cut[j] || level[j] < 0) continue;
    w[j] = Math.min(1, (level[j] + 1) / (falloff + 1));
  }
  return boneMaskFromWeightArray(skeleton, w, label);
}

/**
 * The first joint of the upper body (features/upper-body.ts): the hips' child that does not lead to
 * a foot and carries the largest subtree, from the joint above where the hips hold only the legs.
 * The same joint orientation warping turns first (controller/upper-body-twist.ts). -1 when there is none.
 */
export function upperBodyRoot(rig: MaskRig): number {
  return upperBodyRootOf(rig.skeleton, rig.roles);
}

/** Everything from the spine up (upperBodyRoot), with a falloff over the spine's first joints. */
export function upperBodyMask(rig: MaskRig, options: { falloff?: number } = {}): BoneMask {
  const falloff = options.falloff ?? 0;
  requireFalloff(falloff, 'upper body mask');
  const root = upperBodyRoot(rig);
  if (root < 0) throw new BoneMaskError(`upper body mask: the hips (${rig.skeleton.names[rig.roles.hips]}) have no child other than the legs`);
  return subtreeMask(rig.skeleton, [root], falloff, [], `upper body (${rig.skeleton.names[root]})${falloff > 0 ? ` falloff ${falloff}` : ''}`);
}

/**
 * The arms: in the upper body, the first joint of each side (its parent has no left/right
 * counterpart, it has one: the shoulder or clavicle), and everything below them.
 */
export function armsMask(rig: MaskRig, options: { falloff?: number } = {}): BoneMask {
  const falloff = options.falloff ?? 0;
  requireFalloff(falloff, 'arms mask');
  const root = upperBodyRoot(rig);
  const parents = rig.skeleton.parents, J = parents.length;
  const partner = mirrorJointMap(rig.skeleton.names);
  const inside = new Uint8Array(J);
  const arms: number[] = [];
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    inside[j] = j === root || (p >= 0 && inside[p]) ? 1 : 0;
    if (inside[j] && j !== root && partner[j] !== j && partner[p] === p) arms.push(j);
  }
  if (arms.length === 0) throw new BoneMaskError('arms mask: no left/right joints hang from the spine (name the arms\' joints instead)');
  return subtreeMask(rig.skeleton, arms, falloff, [], `arms (${arms.map((j) => rig.skeleton.names[j]).join(', ')})${falloff > 0 ? ` falloff ${falloff}` : ''}`);
}

/** True when the mask leaves the legs alone: no weight on the feet's chains up from the skeleton's root. */
export function maskSparesLegs(mask: BoneMask, rig: MaskRig): boolean {
  const parents = rig.skeleton.parents;
  for (const start of [rig.roles.leftFoot, rig.roles.rightFoot, rig.roles.leftToe, rig.roles.rightToe]) {
    for (let j = start; j >= 0; j = parents[j]) if (mask.weights[j] > 0) return false;
  }
  return true;
}

/** A value for a message: its type (and length). */
function kindOf(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  if (typeof v === 'object') return (v as object).constructor === Object ? 'an object' : `a ${(v as object).constructor?.name ?? 'object'}`;
  return `a ${typeof v}`;
}

/**
 * Throws unless `mask` is a well-formed BoneMask (a hand-made one too): a TypeError when its parts
 * have the wrong types, a BoneMaskError (a RangeError) when a weight is not in [0, 1] (NaN
 * included) or `joints` is not the list of the joints with a weight above zero, in joint order.
 */
export function requireWellFormedMask(mask: unknown, what: string): asserts mask is BoneMask {
  if (mask === null || typeof mask !== 'object') throw new TypeError(`${what}: mask must be a BoneMask { weights, joints, jointNames, label }, got ${kindOf(mask)}`);
  const m = mask as Partial<Record<keyof BoneMask, unknown>>;
  if (!(m.weights instanceof Float64Array)) throw new TypeError(`${what}: mask.weights must be a Float64Array (one weight per joint), got ${kindOf(m.weights)}`);
  if (!(m.joints instanceof Int32Array)) throw new TypeError(`${what}: mask.joints must be an Int32Array of joint indices, got ${kindOf(m.joints)}`);
  if (!Array.isArray(m.jointNames) || !m.jointNames.every((n) => typeof n === 'string')) throw new TypeError(`${what}: mask.jointNames must be an array of joint names, got ${kindOf(m.jointNames)}`);
  if (typeof m.label !== 'string') throw new TypeError(`${what}: mask.label must be a string, got ${kindOf(m.label)}`);
  const weights = m.weights, joints = m.joints, J = m.jointNames.length;
  if (weights.length !== J) throw new BoneMaskError(`${what}: mask.weights has ${weights.length} values for ${J} joints (mask.jointNames)`);
  for (let j = 0; j < J; j++) {
    const w = weights[j];
    if (!(w >= 0 && w <= 1)) throw new BoneMaskError(`${what}: mask.weights[${j}] (${m.jointNames[j].slice(0, 40)}) must be in [0, 1], got ${String(w)}`);
  }
  let prev = -1;
  for (let i = 0; i < joints.length; i++) {
    const j = joints[i];
    if (!(j >= 0 && j < J)) throw new BoneMaskError(`${what}: mask.joints[${i}] is ${j}, not a joint index in [0, ${J - 1}]`);
    if (j <= prev) throw new BoneMaskError(`${what}: mask.joints must list joint indices in increasing order (mask.joints[${i}] is ${j} after ${prev})`);
    if (!(weights[j] > 0)) throw new BoneMaskError(`${what}: mask.joints[${i}] is joint ${j}, whose weight is 0 (mask.joints lists the joints with a weight above 0)`);
    prev = j;
  }
  let weighted = 0;
  for (let j = 0; j < J; j++) if (weights[j] > 0) weighted++;
  if (weighted !== joints.length) throw new BoneMaskError(`${what}: mask.joints lists ${joints.length} joints, but ${weighted} have a weight above 0`);
}

/** Throws unless `mask` is well formed (requireWellFormedMask) and was made for a skeleton with these joint names. */
export function requireMaskFits(mask: BoneMask, skeleton: Skeleton, what: string): void {
  requireWellFormedMask(mask, what);
  const a = mask.jointNames, b = skeleton.names;
  if (a !== b && (a.length !== b.length || a.some((n, i) => n !== b[i]))) {
    throw new BoneMaskError(`${what}: the bone mask was made for another skeleton (${a.length} joints: ${listJointsBriefly(a, 4)})`);
  }
}

/** Mask specifications parseBoneMaskSpec accepts, for usage texts. */
export const BONE_MASK_SPEC_HELP = "upper[:N] (the spine up, falloff over N joints), arms[:N], NAME[,NAME...][:N] (subtrees), or NAME=W[,NAME=W...] (weights)";

/**
 * A mask from a one-line specification (command lines, settings):
 *   upper | upper:N       everything from the spine up, falloff over N joints
 *   arms | arms:N         both arms from the shoulders (or clavicles) down
 *   A,B | A,B:N           the subtrees of joints A and B
 *   A=0.5,B=1             explicit weights (other joints 0)
 */
export function parseBoneMaskSpec(spec: string, rig: MaskRig): BoneMask {
  const text = spec.trim();
  if (text === '') throw new BoneMaskError(`bone mask: empty specification (expected ${BONE_MASK_SPEC_HELP})`);
  if (text.includes('=')) {
    const weights: Record<string, number> = {};
    for (const part of text.split(',')) {
      const eq = part.indexOf('=');
      const name = part.slice(0, eq).trim(), value = part.slice(eq + 1).trim();
      if (eq <= 0 || value === '' || !Number.isFinite(Number(value))) throw new BoneMaskError(`bone mask: expected NAME=WEIGHT, got '${part.trim()}'`);
      weights[name] = Number(value);
    }
    return boneMaskFromWeights(rig.skeleton, weights);
  }
  const colon = text.lastIndexOf(':');
  let body = text, falloff = 0;
  if (colon >= 0 && /^\s*\d+\s*$/.test(text.slice(colon + 1))) {
    body = text.slice(0, colon).trim();
    falloff = Number(text.slice(colon + 1));
  }
  if (body === 'upper') return upperBodyMask(rig, { falloff });
  if (body === 'arms') return armsMask(rig, { falloff });
  const names = body.split(',').map((n) => n.trim());
  if (names.some((n) => n === '')) throw new BoneMaskError(`bone mask: empty joint name in '${spec}' (expected ${BONE_MASK_SPEC_HELP})`);
  return boneMaskFromSubtree(rig.skeleton, names, { falloff });
}
