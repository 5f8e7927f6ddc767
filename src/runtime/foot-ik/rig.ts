/**
 * Which joints foot IK moves, per database: each leg's hip, knee, foot and contact point (the joint
 * its contact label came from), its length, and the joints hanging below the foot; the hips and
 * everything below them. Computed once per database and shared by every character. And a leg as
 * debug views see it (its joints and live views of its state).
 */
import type { Database } from '../../database/database.js';
import { CONTACT_LEFT, CONTACT_RIGHT, contactJoints } from '../../features/contacts.js';
import { LOCK, LOCKED, OFFSET, OFFSET_VEL, TARGET } from './state.js';
import { capturedData } from '../captured-data.js';
import { restPositions } from '../../features/leg-chains.js';
import type { Skeleton } from '../../anim/skeleton.js';

/** One leg of the skeleton: which joints, which contact bit. The same for every character of a database. */
export interface LegJoints {
  readonly hip: number;
  readonly knee: number;
  readonly foot: number;
  readonly bit: number;
  /**
   * The point held still while the foot is in contact: the joint the contact label came from (the
   * toe where the rig has one, else the foot itself). Holding the ankle instead would drag the toe
   * round it while the heel rolls off.
   */
  readonly contact: number;
  /** Hip to knee plus knee to ankle, in the rest pose (m): the rig's own scale for distances. */
  readonly length: number;
  /** The contact point's height when planted (captured-data.ts; m above the floor). */
  readonly plantedHeight: number;
  /** The ankle's height when planted (m above the floor). */
  readonly anklePlantedHeight: number;
  /** Joints below the foot (toes, end joints), parents first: moved along after a solve. */
  readonly below: Int32Array;
}

export interface FootRig {
  readonly legs: readonly [LegJoints, LegJoints];
  readonly hips: number;
  /** The hips and every joint below them (parents-first order). */
  readonly hipsSubtree: Int32Array;
}

const rigs = new WeakMap<Database, FootRig>();

export function footRig(db: Database): FootRig {
  let rig = rigs.get(db);
  if (rig) return rig;
  const parents = db.skeleton.parents;
  const [contactL, contactR] = contactJoints(db.roles);
  const rest = capturedData(db).restHeights;
  // The contact point's planted height: the toe's where it is the contact point, else the ankle's.
  const planted = (side: number, contact: number) => (contact === db.roles.leftToe || contact === db.roles.rightToe ? rest[side] : rest[2 + side]);
  const leg = (foot: number, bit: number, contactJoint: number, side: number): LegJoints => {
    const { hip, knee } = legBendJoints(db.skeleton, db.roles.hips, foot);
    if (knee < 0 || hip < 0) throw new RangeError(`foot IK needs a hip and a knee above the foot "${db.skeleton.names[foot]}"`);
    const below: number[] = [];
    for (let j = foot + 1; j < parents.length; j++) if (parents[j] === foot || below.includes(parents[j])) below.push(j);
    // A contact joint that does not hang below the foot cannot be moved by bending the leg: hold the foot.
    const contact = contactJoint === foot || below.includes(contactJoint) ? contactJoint : foot;
    const off = db.skeleton.offsets, norm = (j: number) => Math.hypot(off[3 * j], off[3 * j + 1], off[3 * j + 2]);
    const plantedHeight = planted(side, contact);
    const ankle = rest[2 + side];
    return {
      hip, knee, foot, bit, contact, length: boneLength(parents, hip, knee, norm) + boneLength(parents, knee, foot, norm), plantedHeight: Number.isFinite(plantedHeight) ? plantedHeight : 0,
      anklePlantedHeight: Number.isFinite(ankle) ? ankle : 0, below: Int32Array.from(below),
    };
  };
  rig = {
    legs: [leg(db.roles.leftFoot, CONTACT_LEFT, contactL, 0), leg(db.roles.rightFoot, CONTACT_RIGHT, contactR, 1)],
    hips: db.roles.hips,
    hipsSubtree: subtree(parents, db.roles.hips),
  };
  rigs.set(db, rig);
  return rig;
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

/** Rest length of the bone from `top` down to `j` (the sum of the offsets' lengths on the way: one for a bone not split). */
function boneLength(parents: Int32Array, top: number, j: number, norm: (j: number) => number): number {
  let sum = 0;
  for (let c = j; c >= 0 && c !== top; c = parents[c]) sum += norm(c);
  return sum;
}

/** `root` and its descendants, for a parents-first hierarchy. */
function subtree(parents: Int32Array, root: number): Int32Array {
  const inside = new Uint8Array(parents.length);
  const out: number[] = [];
  for (let j = 0; j < parents.length; j++) {
    if (j === root || (parents[j] >= 0 && inside[parents[j]])) { inside[j] = 1; out.push(j); }
  }
  return Int32Array.from(out);
}

/** A leg as debug views see it: its joints, whether it is locked, and live views of its vectors. */
export interface FootIKLeg extends LegJoints {
  readonly locked: boolean;
  /** Where a locked foot is held (world). */
  readonly lock: Float64Array;
  /** Target = desired (lock or animated foot) + offset; the offset decays, making IK blend in/out smoothly. */
  readonly offset: Float64Array;
  readonly offsetVel: Float64Array;
  readonly target: Float64Array;
}

/** FootIKLeg over a FootIK state block (a class, so that every leg view shares one shape). */
export class LegView implements FootIKLeg {
  readonly hip: number;
  readonly knee: number;
  readonly foot: number;
  readonly bit: number;
  readonly contact: number;
  readonly length: number;
  readonly plantedHeight: number;
  readonly anklePlantedHeight: number;
  readonly below: Int32Array;
  readonly lock: Float64Array;
  readonly offset: Float64Array;
  readonly offsetVel: Float64Array;
  readonly target: Float64Array;

  constructor(joints: LegJoints, private readonly S: Float64Array, private readonly at: number) {
    this.hip = joints.hip; this.knee = joints.knee; this.foot = joints.foot; this.bit = joints.bit; this.contact = joints.contact; this.length = joints.length; this.plantedHeight = joints.plantedHeight; this.anklePlantedHeight = joints.anklePlantedHeight; this.below = joints.below;
    const view = (o: number) => S.subarray(at + o, at + o + 3);
    this.lock = view(LOCK); this.offset = view(OFFSET); this.offsetVel = view(OFFSET_VEL); this.target = view(TARGET);
  }

  get locked(): boolean {
    return this.S[this.at + LOCKED] === 1;
  }
}
