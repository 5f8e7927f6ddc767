/**
 * Bone roles: which joints are the hips, the feet and the toes, found without options for the
 * rigs in the wild. Names decide first (see bone-names.ts for the conventions); the hierarchy
 * settles what names leave open: the hips are where the two legs meet, a foot hangs below a knee
 * below a thigh below the hips, and for names that say nothing the rest pose's shape finds the
 * legs (leg-chains.ts).
 */
import type { Skeleton } from '../anim/skeleton.js';
import type { BoneRole } from './schema.js';
import { jointNameInfo, type JointNameInfo, type Side } from './bone-names.js';
import { footIndexOnChain, hipsByShape, leftChainIndex, legChainsBelow, skeletonShape, type SkeletonShape } from './leg-chains.js';

export type { BoneRoles } from './schema.js';
import type { BoneRoles } from './schema.js';

export { nameTokens, mirrorJointMap, swapSideInName } from './bone-names.js';

export const BONE_ROLES: readonly BoneRole[] = ['hips', 'leftFoot', 'rightFoot', 'leftToe', 'rightToe'];
const REQUIRED_ROLES: readonly BoneRole[] = ['hips', 'leftFoot', 'rightFoot'];

/** Joint names listed in a message at most; the rest are counted. */
const MAX_JOINTS_LISTED = 8;

/** "A, B, C, ... and 2,345 more": a few joint names for a one-line message. */
export function listJointsBriefly(names: readonly string[], max = MAX_JOINTS_LISTED): string {
  const shown = names.slice(0, max).join(', ');
  const more = names.length - Math.min(max, names.length);
  return more > 0 ? `${shown}, ... and ${more.toLocaleString('en-US')} more` : shown;
}

/**
 * A role that could not be resolved. The message is one line: the file (when known), what failed,
 * a few of the skeleton's joints and the --bones option that settles it.
 */
export class BoneRoleError extends Error {
  constructor(readonly role: string, readonly jointNames: readonly string[], detail: string, readonly source?: string) {
    super(
      `${source !== undefined ? `${source}: ` : ''}${detail} (joints: ${listJointsBriefly(jointNames)}); ` +
      `name the bones explicitly, e.g. --bones hips=${jointNames[0] ?? 'Hips'},leftFoot=NAME,rightFoot=NAME`,
    );
    this.name = 'BoneRoleError';
  }
}

/** Parses "hips=Hips,leftFoot=Foot_L" into a role -> joint-name map. */
export function parseBoneOverrides(spec: string): Partial<Record<BoneRole, string>> {
  const out: Partial<Record<BoneRole, string>> = {};
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new RangeError(`--bones: expected role=NAME, got "${part}"`);
    const role = part.slice(0, eq).trim() as BoneRole;
    if (!BONE_ROLES.includes(role)) throw new RangeError(`--bones: unknown role "${role}" (roles: ${BONE_ROLES.join(', ')})`);
    out[role] = part.slice(eq + 1).trim();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hierarchy helpers

function isAncestor(s: Skeleton, ancestor: number, j: number): boolean {
  for (let p = s.parents[j]; p >= 0; p = s.parents[p]) if (p === ancestor) return true;
  return false;
}

function depthOf(s: Skeleton, j: number): number {
  let d = 0;
  for (let p = s.parents[j]; p >= 0; p = s.parents[p]) d++;
  return d;
}

/** The deepest joint that is an ancestor-or-self of both a and b. */
function commonAncestor(s: Skeleton, a: number, b: number): number {
  let da = depthOf(s, a), db = depthOf(s, b);
  while (da > db) { a = s.parents[a]; da--; }
  while (db > da) { b = s.parents[b]; db--; }
  while (a !== b) { a = s.parents[a]; b = s.parents[b]; }
  return a;
}

/** Among `candidates`, the shallowest (ties: the first in joint order); -1 when there are none. */
function shallowest(s: Skeleton, candidates: readonly number[]): number {
  let best = -1, bestDepth = Infinity;
  for (const c of candidates) {
    const d = depthOf(s, c);
    if (d < bestDepth) { best = c; bestDepth = d; }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// By name

/** True when a joint of the same side named as a thigh or knee lies above j (j hangs from a leg). */
function hangsFromLeg(s: Skeleton, info: readonly JointNameInfo[], j: number, side: Side): boolean {
  for (let p = s.parents[j]; p >= 0; p = s.parents[p]) {
    if ((info[p].part === 'knee' || info[p].part === 'thigh') && info[p].side === side) return true;
  }
  return false;
}

/**
 * The foot of one side by name: a joint named foot or ankle of that side (below `under` when
 * given). Feet that hang from a named leg of their side win over stray ones (IK targets, props);
 * then the shallowest.
 */
function footByName(s: Skeleton, info: readonly JointNameInfo[], side: Side, under: number): number {
  const found: number[] = [];
  for (let j = 0; j < info.length; j++) {
    if (info[j].part === 'foot' && info[j].side === side && (under < 0 || isAncestor(s, under, j))) found.push(j);
  }
  const onLegs = found.filter((j) => hangsFromLeg(s, info, j, side));
  return shallowest(s, onLegs.length > 0 ? onLegs : found);
}

/**
 * The foot of one side from its leg's names when the foot's own name says nothing: the joint
 * below a named knee, else two below a named thigh (thigh, knee, foot).
 */
function footBelowNamedLeg(s: Skeleton, info: readonly JointNameInfo[], shape: SkeletonShape, side: Side, under: number): number {
  const eligible = (j: number): boolean => info[j].side === side && (under < 0 || isAncestor(s, under, j));
  const childDown = (j: number): number => shape.lowestChild[j];
  const knee = shallowest(s, info.map((_, j) => j).filter((j) => info[j].part === 'knee' && eligible(j)));
  if (knee >= 0 && childDown(knee) >= 0) return childDown(knee);
  const thigh = shallowest(s, info.map((_, j) => j).filter((j) => info[j].part === 'thigh' && eligible(j)));
  if (thigh >= 0) {
    const k = childDown(thigh);
    if (k >= 0 && childDown(k) >= 0) return childDown(k);
  }
  return -1;
}

/** The hips by name: unsided hips/pelvis/hip words first, then 'root'; the shallowest of each. */
function hipsByName(s: Skeleton, info: readonly JointNameInfo[]): number {
  for (const part of ['hips', 'root'] as const) {
    const found = shallowest(s, info.map((_, j) => j).filter((j) => info[j].part === part && info[j].side === 'none'));
    if (found >= 0) return found;
  }
  return -1;
}

/** The toe below a foot: a joint named toe/ball of the foot's side (or of none), not an end tip. */
function toeByName(s: Skeleton, info: readonly JointNameInfo[], foot: number, side: Side): number {
  const found: number[] = [];
  for (let j = foot + 1; j < info.length; j++) {
    if (info[j].part === 'toe' && (info[j].side === side || info[j].side === 'none') && isAncestor(s, foot, j)) found.push(j);
  }
  return shallowest(s, found);
}

// ---------------------------------------------------------------------------------------------
// The finder

/**
 * Finds the hips, feet and (when present) toes. Overrides win. Then, without options:
 *   1. feet by name (foot/ankle with a side: LeftFoot, Foot_L, foot.L, lAnkle, Bip01 L Foot, ...),
 *      else the joint below the side's named knee (or two below its thigh);
 *   2. hips: where the two feet's legs meet (their deepest common ancestor); without feet, by
 *      name (Hips, pelvis, hip, root) or by shape (the deepest joint with two legs below it);
 *   3. feet still missing: from the shape of the legs below the hips (sides by name, else by the
 *      rest pose: the character faces where its toes point);
 *   4. toes: named toe/ball joints below each foot (tips such as LeftToe_End excluded), else, for
 *      feet found by shape, the next joint of the leg. No toes is fine.
 * A missing required role throws BoneRoleError naming `source` (the file, for messages) and a
 * few of the joints.
 */
export function findBoneRoles(s: Skeleton, overrides: Partial<Record<BoneRole, string>> = {}, source?: string): BoneRoles {
  const roles: BoneRoles = { hips: -1, leftFoot: -1, rightFoot: -1, leftToe: -1, rightToe: -1 };
  const fail = (role: BoneRole, detail: string): never => { throw new BoneRoleError(role, s.names, detail, source); };
  for (const role of BONE_ROLES) {
    const name = overrides[role];
    if (name === undefined) continue;
    const j = s.names.indexOf(name);
    if (j < 0) fail(role, `--bones: ${role}=${name} names no joint of this skeleton`);
    roles[role] = j;
  }
  const info = jointNameInfo(s.names);
  const shape = skeletonShape(s);
  const given = { ...roles };

  // 1. Feet by name, then from the names of their legs.
  for (const [role, side] of [['leftFoot', 'left'], ['rightFoot', 'right']] as const) {
    if (roles[role] < 0) roles[role] = footByName(s, info, side, roles.hips);
    if (roles[role] < 0) roles[role] = footBelowNamedLeg(s, info, shape, side, roles.hips);
  }
  if (roles.leftFoot >= 0 && roles.leftFoot === roles.rightFoot) fail('leftFoot', 'left and right foot resolve to the same joint');

  // 2. Hips.
  if (roles.hips < 0 && roles.leftFoot >= 0 && roles.rightFoot >= 0) {
    const meet = commonAncestor(s, roles.leftFoot, roles.rightFoot);
    if (meet !== roles.leftFoot && meet !== roles.rightFoot) roles.hips = meet;
  }
  if (roles.hips < 0) roles.hips = hipsByName(s, info);
  if (roles.hips < 0) roles.hips = hipsByShape(shape);
  if (roles.hips < 0) fail('hips', 'cannot find the hips bone by name or by the shape of the skeleton');

  // 3. Feet from the shape of the legs below the hips.
  const shapeToe: Record<'leftFoot' | 'rightFoot', number> = { leftFoot: -1, rightFoot: -1 };
  if (roles.leftFoot < 0 || roles.rightFoot < 0) feetByShape(info, shape, roles, shapeToe);

  for (const role of REQUIRED_ROLES) {
    if (roles[role] < 0) fail(role, `cannot find the ${role} bone by name or by the shape of the skeleton`);
  }
  if (roles.leftFoot === roles.rightFoot) fail('leftFoot', 'left and right foot resolve to the same joint');
  if (isAncestor(s, roles.leftFoot, roles.rightFoot) || isAncestor(s, roles.rightFoot, roles.leftFoot)) {
    fail('leftFoot', `the feet ${s.names[roles.leftFoot]} and ${s.names[roles.rightFoot]} lie on one chain, not on two legs`);
  }

  // 4. Toes.
  for (const [toe, foot, side] of [['leftToe', 'leftFoot', 'left'], ['rightToe', 'rightFoot', 'right']] as const) {
    if (given[toe] >= 0) continue;
    roles[toe] = toeByName(s, info, roles[foot], side);
    if (roles[toe] < 0) roles[toe] = shapeToe[foot];
  }
  return roles;
}

/**
 * Fills the missing feet from the leg chains below the hips. A chain holding a foot already
 * found is that foot's leg; the other chain is the other side. Sides come from the chains' names
 * when they have any, else from the rest pose. Records the joint after each foot found this way
 * (its toe when names give none).
 */
function feetByShape(
  info: readonly JointNameInfo[], shape: SkeletonShape, roles: BoneRoles,
  shapeToe: Record<'leftFoot' | 'rightFoot', number>,
): void {
  const chains = legChainsBelow(shape, roles.hips);
  if (chains.length < 2) return;
  const feet = chains.map((c) => footIndexOnChain(shape.rest, c));
  if (feet[0] < 0 || feet[1] < 0) return;
  const holds = (k: number, j: number): boolean => j >= 0 && chains[k].includes(j);
  const sideByNames = (k: number): Side => {
    let left = 0, right = 0;
    for (const j of chains[k]) { if (info[j].side === 'left') left++; else if (info[j].side === 'right') right++; }
    return left > right ? 'left' : right > left ? 'right' : 'none';
  };
  let left: number;
  if (holds(0, roles.leftFoot) || holds(1, roles.rightFoot)) left = 0;
  else if (holds(1, roles.leftFoot) || holds(0, roles.rightFoot)) left = 1;
  else {
    const s0 = sideByNames(0), s1 = sideByNames(1);
    if (s0 !== s1 && s0 !== 'none') left = s0 === 'left' ? 0 : 1;
    else if (s0 !== s1) left = s1 === 'left' ? 1 : 0;
    else left = leftChainIndex(shape.rest, chains, feet);
  }
  for (const [role, k] of [['leftFoot', left], ['rightFoot', 1 - left]] as const) {
    if (roles[role] >= 0) continue;
    const chain = chains[k], i = feet[k];
    roles[role] = chain[i];
    const next = i + 1 < chain.length ? chain[i + 1] : -1;
    shapeToe[role] = next >= 0 && info[next].part !== 'end' ? next : -1;
  }
}
