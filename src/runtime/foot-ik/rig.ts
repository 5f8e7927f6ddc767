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
import { legBendJoints } from '../../features/leg-chains.js';

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
