/**
 * The humanoid bones of a rig, found by name first and by the rest pose's shape where names say
 * nothing. Works on a plain description (names, parents, rest positions) so that the same code
 * maps the target rig (three.js bones) and the motionmatch database's skeleton.
 *
 * Order: bones given by the caller win; then names (bone-names.ts), each limb checked against the
 * hierarchy (a foot must hang below its lower leg, below its upper leg, below the hips); then shape:
 * the hips are where the two legs meet, a leg is one of the two longest chains hanging down from the
 * hips (thigh, knee, foot, toes), its side the side it hangs on.
 */
import { boneNameInfo, type BoneNameInfo, type Side } from './bone-names.js';
import { ThreeRigError, listBriefly } from './errors.js';

/** The roles of a humanoid, named as VRM (and three-vrm) name them. */
export const HUMANOID_ROLES = [
  'hips', 'spine', 'chest', 'upperChest', 'neck', 'head',
  'leftShoulder', 'leftUpperArm', 'leftLowerArm', 'leftHand',
  'rightShoulder', 'rightUpperArm', 'rightLowerArm', 'rightHand',
  'leftUpperLeg', 'leftLowerLeg', 'leftFoot', 'leftToes',
  'rightUpperLeg', 'rightLowerLeg', 'rightFoot', 'rightToes',
] as const;
export type HumanoidRole = (typeof HUMANOID_ROLES)[number];

/** Roles without which a character cannot walk. */
export const REQUIRED_ROLES: readonly HumanoidRole[] = ['hips', 'leftFoot', 'leftLowerLeg', 'leftUpperLeg', 'rightFoot', 'rightLowerLeg', 'rightUpperLeg'];

/** What the finder reads: a joint hierarchy in any order (parents need not come first). */
export interface RigDescription {
  readonly names: readonly string[];
  /** Parent index per joint, -1 for a root. */
  readonly parents: Int32Array;
  /** Rest positions (3 per joint), Y up, one unit for the whole rig. */
  readonly rest: Float64Array;
}

/** Joint index per role (-1: absent); `spineChain` is the torso from the hips up to the neck, exclusive. */
export interface HumanoidBones {
  readonly roles: Record<HumanoidRole, number>;
  /** Torso joints between the hips and the neck (or head), bottom up: what spine/chest/upperChest name. */
  readonly spineChain: readonly number[];
  /** How each role was found (for the bone map a UI shows). */
  readonly how: Partial<Record<HumanoidRole, 'given' | 'name' | 'shape'>>;
}

type Given = Partial<Record<HumanoidRole, number>>;

const LEG_PARTS = ['upperLeg', 'lowerLeg', 'foot', 'toes'] as const;
const ARM_PARTS = ['shoulder', 'upperArm', 'lowerArm', 'hand'] as const;
const CHAIN_ROLES: readonly HumanoidRole[] = ['spine', 'chest', 'upperChest'];

function roleOf(side: 'left' | 'right', part: string): HumanoidRole {
  return `${side}${part[0].toUpperCase()}${part.slice(1)}` as HumanoidRole;
}

/**
 * Finds the humanoid bones of `rig`. `given` (role -> joint index) wins. Throws ThreeRigError
 * ('missing-bone') naming the first required role that cannot be found and listing the names seen;
 * `what` names the rig in that message ("the character", "the database"), `hint` ends it (ROLE
 * replaced by the role).
 */
export function findHumanoidBones(rig: RigDescription, given: Given = {}, what = 'the character', hint = ''): HumanoidBones {
  const J = rig.names.length;
  const info = rig.names.map(boneNameInfo);
  const tree = new Tree(rig.parents);
  const roles = Object.fromEntries(HUMANOID_ROLES.map((r) => [r, -1])) as Record<HumanoidRole, number>;
  const how: Partial<Record<HumanoidRole, 'given' | 'name' | 'shape'>> = {};
  const set = (role: HumanoidRole, j: number, h: 'given' | 'name' | 'shape'): void => { if (j >= 0 && roles[role] < 0) { roles[role] = j; how[role] = h; } };
  for (const r of HUMANOID_ROLES) { const j = given[r]; if (j !== undefined && j >= 0) set(r, j, 'given'); }
  const named = (part: string, side: Side, under: number): number[] => {
    const out: number[] = [];
    for (let j = 0; j < J; j++) if (info[j].part === part && info[j].side === side && (under < 0 || tree.isAncestor(under, j))) out.push(j);
    return out;
  };

  // Hips by name when the name is unambiguous; checked against the legs below.
  set('hips', tree.shallowest(named('hips', 'none', -1)), 'name');

  // Legs by name: foot, then the nearest named lower leg above it, then the nearest upper leg above that.
  for (const side of ['left', 'right'] as const) {
    legByName(roles, how, info, tree, side, named);
  }
  // Hips from the legs when names did not settle them (or named hips not above both legs).
  const ul = roles.leftUpperLeg, ur = roles.rightUpperLeg;
  if (ul >= 0 && ur >= 0) {
    const meet = tree.commonAncestor(ul, ur);
    if (roles.hips < 0 || !(tree.isAncestor(roles.hips, ul) && tree.isAncestor(roles.hips, ur))) {
      if (how.hips !== 'given' && meet >= 0) { roles.hips = meet; how.hips = 'shape'; }
    }
  }
  // Legs by shape where names said nothing.
  if (roles.leftFoot < 0 || roles.rightFoot < 0) legsByShape(rig, tree, info, roles, how);

  // Torso and head: names, then the shape (the highest centred joint above the hips).
  const hips = roles.hips;
  if (hips >= 0) {
    set('head', tree.shallowest(named('head', 'none', hips)), 'name');
    if (roles.head < 0) set('head', headByShape(rig, tree, info, roles), 'shape');
    if (roles.head >= 0 && roles.neck < 0) set('neck', tree.nearestAncestor(roles.head, (j) => info[j].part === 'neck', hips), 'name');
    for (const side of ['left', 'right'] as const) armByName(roles, how, info, tree, side, named, hips);
  }
  const spineChain = torsoChain(roles, tree, info);
  CHAIN_ROLES.forEach((r, i) => {
    const j = spineChain[i];
    if (roles[r] < 0 && j !== undefined) set(r, j, info[j].part === 'spine' || info[j].part === 'chest' ? 'name' : 'shape');
  });

  for (const r of REQUIRED_ROLES) {
    if (roles[r] < 0) {
      throw new ThreeRigError('missing-bone', `no ${r} bone found in ${what} (bones: ${listBriefly(rig.names)})${hint.replace('ROLE', r)}`);
    }
  }
  return { roles, spineChain, how };
}

/** One leg by name, each joint checked to hang below the one above it. */
function legByName(
  roles: Record<HumanoidRole, number>, how: HumanoidBones['how'], info: readonly BoneNameInfo[], tree: Tree, side: 'left' | 'right',
  named: (part: string, side: Side, under: number) => number[],
): void {
  const [u, l, f, t] = LEG_PARTS.map((p) => roleOf(side, p));
  const put = (r: HumanoidRole, j: number): void => { if (j >= 0 && roles[r] < 0) { roles[r] = j; how[r] = 'name'; } };
  const under = roles[u] >= 0 ? roles[u] : roles.hips;
  put(f, tree.shallowest(named('foot', side, under)));
  if (roles[f] < 0) return;
  // Unnamed joints in between are taken by position in the chain, but never one named as another
  // part (a foot hanging straight from a thigh has no lower leg: reported, not guessed).
  const unnamed = (j: number): number => (j >= 0 && j !== roles.hips && info[j].part === 'other' ? j : -1);
  put(l, tree.nearestAncestor(roles[f], (j) => info[j].part === 'lowerLeg' && info[j].side === side, -1));
  if (roles[l] < 0) put(l, unnamed(tree.parent(roles[f])));
  if (roles[l] >= 0) put(u, tree.nearestAncestor(roles[l], (j) => info[j].part === 'upperLeg' && info[j].side === side, -1));
  if (roles[u] < 0 && roles[l] >= 0) put(u, unnamed(tree.parent(roles[l])));
  // No lower leg: the thigh is still the named one above the foot (so that the error names the knee).
  if (roles[u] < 0) put(u, tree.nearestAncestor(roles[f], (j) => info[j].part === 'upperLeg' && info[j].side === side, -1));
  put(t, tree.shallowest(named('toes', side, roles[f])));
}

/** One arm by name (optional): hand, then the nearest lower arm, upper arm and shoulder above it. */
function armByName(
  roles: Record<HumanoidRole, number>, how: HumanoidBones['how'], info: readonly BoneNameInfo[], tree: Tree, side: 'left' | 'right',
  named: (part: string, side: Side, under: number) => number[], hips: number,
): void {
  const [s, u, l, h] = ARM_PARTS.map((p) => roleOf(side, p));
  const put = (r: HumanoidRole, j: number): void => { if (j >= 0 && roles[r] < 0) { roles[r] = j; how[r] = 'name'; } };
  put(h, tree.shallowest(named('hand', side, hips)));
  const from = (r: HumanoidRole): number => roles[r];
  const above = (j: number, part: string): number => (j < 0 ? -1 : tree.nearestAncestor(j, (k) => info[k].part === part && info[k].side === side, hips));
  put(l, above(from(h), 'lowerArm'));
  put(u, above(from(l) >= 0 ? from(l) : from(h), 'upperArm'));
  if (roles[u] < 0) put(u, tree.shallowest(named('upperArm', side, hips)));
  put(s, above(from(u), 'shoulder'));
}

/**
 * Legs from the rest shape: the two longest chains hanging down from the hips (each reaching a
 * quarter of the rig's height below them, three joints or more). Left is the side the character's
 * left hangs on: its toes show where it faces (+Z, the glTF convention, without toes).
 */
function legsByShape(rig: RigDescription, tree: Tree, info: readonly BoneNameInfo[], roles: Record<HumanoidRole, number>, how: HumanoidBones['how']): void {
  const rest = rig.rest, J = rig.names.length;
  let lo = Infinity, hi = -Infinity;
  for (let j = 0; j < J; j++) { lo = Math.min(lo, rest[3 * j + 1]); hi = Math.max(hi, rest[3 * j + 1]); }
  const minDrop = 0.25 * (hi - lo);
  // The lowest point and the chain to it, below every joint.
  const chainDown = (j: number): number[] => {
    const chain = [j];
    for (;;) {
      const kids = tree.children[chain[chain.length - 1]].filter((c) => info[c].part !== 'helper');
      if (kids.length === 0) return chain;
      let best = kids[0];
      for (const c of kids) if (tree.lowest(c, rest) < tree.lowest(best, rest)) best = c;
      chain.push(best);
    }
  };
  const legsBelow = (h: number): number[][] => tree.children[h]
    .filter((c) => rest[3 * h + 1] - tree.lowest(c, rest) >= minDrop)
    .map(chainDown)
    .filter((c) => c.length >= 3)
    .sort((a, b) => b.length - a.length || tree.lowest(a[0], rest) - tree.lowest(b[0], rest))
    .slice(0, 2);
  let hips = roles.hips;
  if (hips < 0 || legsBelow(hips).length < 2) {
    // The deepest joint with two legs below it.
    hips = -1;
    for (let j = 0; j < J; j++) if (legsBelow(j).length >= 2 && (hips < 0 || tree.depth(j) > tree.depth(hips))) hips = j;
    if (hips < 0) return;
    if (how.hips !== 'given') { roles.hips = hips; how.hips = 'shape'; }
  }
  const legs = legsBelow(hips);
  if (legs.length < 2) return;
  // Facing: the toes' mean horizontal direction from the feet, else +Z.
  let fx = 0, fz = 0;
  for (const c of legs) if (c.length >= 4) { fx += rest[3 * c[3]] - rest[3 * c[2]]; fz += rest[3 * c[3] + 2] - rest[3 * c[2] + 2]; }
  if (fx * fx + fz * fz < 1e-12) { fx = 0; fz = 1; }
  // Left = up x forward = (fz, 0, -fx).
  const sideOf = (c: number[]): number => rest[3 * c[0]] * fz - rest[3 * c[0] + 2] * fx;
  legs.sort((a, b) => sideOf(b) - sideOf(a));
  legs.forEach((chain, k) => {
    const side = k === 0 ? 'left' : 'right';
    const [u, l, f, t] = LEG_PARTS.map((p) => roleOf(side, p));
    const put = (r: HumanoidRole, j: number | undefined): void => { if (j !== undefined && roles[r] < 0) { roles[r] = j; how[r] = 'shape'; } };
    put(u, chain[0]); put(l, chain[1]); put(f, chain[2]); put(t, chain[3]);
  });
}

/** The head from the shape: the highest joint above the hips outside the legs and arms, near the centre line. */
function headByShape(rig: RigDescription, tree: Tree, info: readonly BoneNameInfo[], roles: Record<HumanoidRole, number>): number {
  const hips = roles.hips, rest = rig.rest;
  const limbs = HUMANOID_ROLES.filter((r) => /Leg|Arm|Hand|Shoulder|Foot|Toes/.test(r)).map((r) => roles[r]).filter((j) => j >= 0);
  let height = 0;
  for (const r of ['leftFoot', 'rightFoot'] as const) if (roles[r] >= 0) height = Math.max(height, rest[3 * hips + 1] - rest[3 * roles[r] + 1]);
  let best = -1;
  for (let j = 0; j < rig.names.length; j++) {
    if (j === hips || !tree.isAncestor(hips, j) || info[j].part === 'helper' || limbs.some((l) => l === j || tree.isAncestor(l, j))) continue;
    if (Math.abs(rest[3 * j] - rest[3 * hips]) > 0.15 * (height || 1)) continue;
    // Leaves are end tips, not heads.
    if (tree.children[j].length === 0) continue;
    if (best < 0 || rest[3 * j + 1] > rest[3 * best + 1]) best = j;
  }
  return best;
}

/**
 * The torso between the hips and the neck (or head), bottom up. Given spine/chest/upperChest win;
 * otherwise every non-helper joint on the path.
 */
function torsoChain(roles: Record<HumanoidRole, number>, tree: Tree, info: readonly BoneNameInfo[]): number[] {
  const givenChain = CHAIN_ROLES.map((r) => roles[r]).filter((j) => j >= 0);
  if (givenChain.length > 0) return givenChain;
  const top = roles.neck >= 0 ? roles.neck : roles.head;
  if (top < 0 || roles.hips < 0) return [];
  const path: number[] = [];
  for (let j = tree.parent(top); j >= 0 && j !== roles.hips; j = tree.parent(j)) if (info[j].part !== 'helper') path.push(j);
  return path.reverse();
}

/** Hierarchy queries over a parents array in any order. */
class Tree {
  readonly children: number[][];
  private readonly depths: Int32Array;
  private readonly lows = new Map<number, number>();

  constructor(private readonly parents: Int32Array) {
    this.children = Array.from(parents, () => [] as number[]);
    parents.forEach((p, j) => { if (p >= 0) this.children[p].push(j); });
    this.depths = Int32Array.from(parents, (_, j) => { let d = 0; for (let p = parents[j]; p >= 0; p = parents[p]) d++; return d; });
  }

  parent(j: number): number { return this.parents[j]; }
  depth(j: number): number { return this.depths[j]; }

  isAncestor(a: number, j: number): boolean {
    for (let p = this.parents[j]; p >= 0; p = this.parents[p]) if (p === a) return true;
    return false;
  }

  commonAncestor(a: number, b: number): number {
    while (this.depths[a] > this.depths[b]) a = this.parents[a];
    while (this.depths[b] > this.depths[a]) b = this.parents[b];
    while (a !== b && a >= 0) { a = this.parents[a]; b = this.parents[b]; }
    return a;
  }

  /** The nearest proper ancestor of j for which `ok` holds, stopping at `stop` (exclusive); -1 if none. */
  nearestAncestor(j: number, ok: (k: number) => boolean, stop: number): number {
    for (let p = this.parents[j]; p >= 0 && p !== stop; p = this.parents[p]) if (ok(p)) return p;
    return -1;
  }

  shallowest(js: readonly number[]): number {
    let best = -1;
    for (const j of js) if (best < 0 || this.depths[j] < this.depths[best]) best = j;
    return best;
  }

  /** Lowest rest height in j's subtree. */
  lowest(j: number, rest: Float64Array): number {
    let v = this.lows.get(j);
    if (v === undefined) {
      v = rest[3 * j + 1];
      for (const c of this.children[j]) v = Math.min(v, this.lowest(c, rest));
      this.lows.set(j, v);
    }
    return v;
  }
}
