import type { Skeleton } from '../anim/skeleton.js';
import type { BoneRole } from './schema.js';

export const BONE_ROLES: readonly BoneRole[] = ['hips', 'leftFoot', 'rightFoot', 'leftToe', 'rightToe'];
const REQUIRED_ROLES: readonly BoneRole[] = ['hips', 'leftFoot', 'rightFoot'];

export type { BoneRoles } from './schema.js';
import type { BoneRoles } from './schema.js';

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

/**
 * Words of a joint name, lower-case: camelCase, separators and digits split apart, namespace
 * prefixes ("mixamorig:", "Armature|") dropped. "mixamorig:LeftToeBase" -> [left, toe, base].
 */
export function nameTokens(name: string): string[] {
  const bare = name.split(/[:|]/).pop() ?? name;
  return bare
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .replace(/[0-9]+/g, ' ')
    .split(/[^A-Za-z]+/)
    .filter((t) => t.length > 0)
    .map((t) => t.toLowerCase());
}

type Side = 'left' | 'right' | 'none';

function sideOf(tokens: string[]): Side {
  for (const t of tokens) {
    if (t === 'l' || t === 'left' || (t.startsWith('left') && t.length > 4)) return 'left';
    if (t === 'r' || t === 'right' || (t.startsWith('right') && t.length > 5)) return 'right';
  }
  return 'none';
}

function hasPart(tokens: string[], parts: readonly string[]): boolean {
  return tokens.some((t) => parts.some((p) => t === p || t.endsWith(p) && (t.startsWith('left') || t.startsWith('right'))));
}

const FOOT_WORDS = ['foot', 'ankle'] as const;
const TOE_WORDS = ['toe', 'toes', 'toebase', 'ball'] as const;
const END_WORDS = ['end', 'site', 'nub', 'tip'] as const;
const HIPS_PREFERENCE = ['hips', 'pelvis', 'hip', 'root'] as const;

function depthOf(s: Skeleton, j: number): number {
  let d = 0;
  for (let p = s.parents[j]; p >= 0; p = s.parents[p]) d++;
  return d;
}

function isDescendant(s: Skeleton, j: number, ancestor: number): boolean {
  for (let p = s.parents[j]; p >= 0; p = s.parents[p]) if (p === ancestor) return true;
  return false;
}

function shallowest(s: Skeleton, candidates: number[]): number {
  let best = -1;
  for (const c of candidates) if (best < 0 || depthOf(s, c) < depthOf(s, best)) best = c;
  return best;
}

function findHips(s: Skeleton): number {
  for (const word of HIPS_PREFERENCE) {
    const found = s.names.map((n, i) => ({ i, t: nameTokens(n) }))
      .filter(({ t }) => sideOf(t) === 'none' && t.includes(word))
      .map(({ i }) => i);
    // "root" joints without motion often sit above the real hips; the hips are the joint
    // with children on both sides, which the shallowest match usually is.
    if (found.length > 0) return shallowest(s, found);
  }
  return -1;
}

function findSided(s: Skeleton, side: Side, words: readonly string[], under: number): number {
  const found: number[] = [];
  for (let i = 0; i < s.names.length; i++) {
    const t = nameTokens(s.names[i]);
    if (sideOf(t) !== side || !hasPart(t, words)) continue;
    if (t.some((w) => (END_WORDS as readonly string[]).includes(w))) continue;
    if (under >= 0 && !isDescendant(s, i, under)) continue;
    found.push(i);
  }
  return shallowest(s, found);
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

/**
 * Finds the hips, feet and (when present) toes by name, for the common conventions:
 * Left/Right/L/R/l/r as prefix or suffix, foot/ankle, toe/toebase, hips/pelvis/root.
 * Overrides win; a missing required role throws BoneRoleError naming `source` (the file, for
 * messages) and a few of the joints.
 */
export function findBoneRoles(s: Skeleton, overrides: Partial<Record<BoneRole, string>> = {}, source?: string): BoneRoles {
  const roles: BoneRoles = { hips: -1, leftFoot: -1, rightFoot: -1, leftToe: -1, rightToe: -1 };
  for (const role of BONE_ROLES) {
    const name = overrides[role];
    if (name === undefined) continue;
    const j = s.names.indexOf(name);
    if (j < 0) throw new BoneRoleError(role, s.names, `--bones: ${role}=${name} names no joint of this skeleton`, source);
    roles[role] = j;
  }
  if (roles.hips < 0) roles.hips = findHips(s);
  if (roles.leftFoot < 0) roles.leftFoot = findSided(s, 'left', FOOT_WORDS, roles.hips);
  if (roles.rightFoot < 0) roles.rightFoot = findSided(s, 'right', FOOT_WORDS, roles.hips);
  if (roles.leftToe < 0 && roles.leftFoot >= 0) roles.leftToe = findSided(s, 'left', TOE_WORDS, roles.leftFoot);
  if (roles.rightToe < 0 && roles.rightFoot >= 0) roles.rightToe = findSided(s, 'right', TOE_WORDS, roles.rightFoot);
  for (const role of REQUIRED_ROLES) {
    if (roles[role] < 0) throw new BoneRoleError(role, s.names, `cannot find the ${role} bone by name`, source);
  }
  if (roles.leftFoot === roles.rightFoot) throw new BoneRoleError('leftFoot', s.names, 'left and right foot resolve to the same joint', source);
  return roles;
}

/**
 * The joint that mirrors each joint (Left<->Right, L<->R, l<->r at word boundaries); a joint
 * with no counterpart maps to itself.
 */
export function mirrorJointMap(names: readonly string[]): Int32Array {
  const out = new Int32Array(names.length);
  for (let i = 0; i < names.length; i++) {
    const m = names.indexOf(swapSideInName(names[i]));
    out[i] = m >= 0 ? m : i;
  }
  return out;
}

const SWAP: Record<string, string> = {
  Left: 'Right', Right: 'Left', left: 'right', right: 'left', LEFT: 'RIGHT', RIGHT: 'LEFT',
  L: 'R', R: 'L', l: 'r', r: 'l',
};

export function swapSideInName(name: string): string {
  const swapped = name.replace(/(^|[^A-Za-z])(Left|Right|left|right|LEFT|RIGHT|L|R|l|r)(?=$|[^a-z])/g, (_m, pre: string, side: string) => pre + SWAP[side]);
  if (swapped !== name) return swapped;
  return name.replace(/^(left|right)/i, (side) => SWAP[side] ?? (side.toLowerCase() === 'left' ? 'right' : 'left'));
}
