/**
 * The database's side of the retargeting: its skeleton's rest pose (identity local rotations, the
 * skeleton's offsets: what every motionmatch pose is relative to) and its humanoid bones. The hips,
 * feet and toes are the database's own roles; the knees and thighs are where the engine's foot IK
 * bends the legs (legBendJoints: above the feet, past any segments a split bone adds); the torso, head and arms are found like the target's.
 */
import type { Database } from '../database/database.js';
import { findHumanoidBones, type HumanoidBones, type HumanoidRole } from './find-bones.js';
import { legBendJoints } from '../features/leg-chains.js';

export interface SourceRig {
  readonly names: readonly string[];
  readonly parents: Int32Array;
  /** Rest world positions (J*3, metres; the character root at the origin, facing +Z). */
  readonly restPos: Float64Array;
  /** Rest world rotations (J*4): identity for every joint, by the database's definition of rest. */
  readonly restRot: Float64Array;
  readonly bones: HumanoidBones;
  /** Mean of the two legs' hip-knee plus knee-ankle lengths in the rest pose (m). */
  readonly legLength: number;
  /** Mean rest height of the two ankles above the root (m). */
  readonly ankleHeight: number;
  /** Facing yaw of the rest pose (atan2(x, z) of forward = left x up). */
  readonly facing: number;
}

export function sourceRig(db: Database): SourceRig {
  const s = db.skeleton, J = s.names.length, parents = s.parents;
  const restPos = new Float64Array(3 * J), restRot = new Float64Array(4 * J);
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    for (let d = 0; d < 3; d++) restPos[3 * j + d] = (p >= 0 ? restPos[3 * p + d] : 0) + s.offsets[3 * j + d];
    restRot[4 * j + 3] = 1;
  }
  const r = db.roles;
  const given: Partial<Record<HumanoidRole, number>> = { hips: r.hips, leftFoot: r.leftFoot, rightFoot: r.rightFoot };
  if (r.leftToe >= 0) given.leftToes = r.leftToe;
  if (r.rightToe >= 0) given.rightToes = r.rightToe;
  // The legs: what the engine's own foot IK takes as knee and hip.
  for (const [foot, lower, upper] of [[r.leftFoot, 'leftLowerLeg', 'leftUpperLeg'], [r.rightFoot, 'rightLowerLeg', 'rightUpperLeg']] as const) {
    const { knee, hip } = legBendJoints(s, r.hips, foot);
    if (knee >= 0) given[lower] = knee;
    if (hip >= 0) given[upper] = hip;
  }
  const bones = findHumanoidBones({ names: s.names, parents, rest: restPos }, given, 'the database skeleton');
  const br = bones.roles;
  const legLength = 0.5 * (legOf(restPos, br.leftUpperLeg, br.leftLowerLeg, br.leftFoot) + legOf(restPos, br.rightUpperLeg, br.rightLowerLeg, br.rightFoot));
  const ankleHeight = 0.5 * (restPos[3 * br.leftFoot + 1] + restPos[3 * br.rightFoot + 1]);
  return { names: s.names, parents, restPos, restRot, bones, legLength, ankleHeight, facing: facingOf(restPos, br.leftUpperLeg, br.rightUpperLeg) };
}

/** Hip-knee plus knee-ankle distance (rest positions p). */
export function legOf(p: Float64Array, hip: number, knee: number, ankle: number): number {
  const d = (a: number, b: number): number => Math.hypot(p[3 * a] - p[3 * b], p[3 * a + 1] - p[3 * b + 1], p[3 * a + 2] - p[3 * b + 2]);
  return d(hip, knee) + d(knee, ankle);
}

/** Facing yaw from the left-to-right line of the thighs: forward = left x up = (-lz, 0, lx). */
export function facingOf(p: Float64Array, left: number, right: number): number {
  const lx = p[3 * left] - p[3 * right], lz = p[3 * left + 2] - p[3 * right + 2];
  return Math.atan2(-lz, lx);
}
