/**
 * The upper body's turn of orientation warping: the spine above the hips rotates about the world's
 * vertical by an angle spread over its first joints, so that the chest and head face the requested
 * way while the legs face the way the chosen motion travels (see ControllerOptions.orientationWarp).
 */
import type { Database } from '../../database/database.js';
import { quatMultiply, quatInvRotateVec3 } from '../../math/quat.js';
import { mirrorJointMap } from '../../features/roles.js';
import { upperBodyRoot } from '../../features/upper-body.js';

/** What the twist edits on its host (the controller): the local pose and its world transforms. */
export interface TwistHost {
  readonly rotations: Float64Array;
  readonly worldRotations: Float64Array;
  /** Recomputes one joint's world transform from its parent's. */
  updateWorldJoint(j: number): void;
}

export interface UpperBodyRig {
  /** The spine joints that share the turn (up to three, from the hips up). */
  readonly chain: Int32Array;
  /** The first spine joint and everything below it, parents first: re-posed after a turn. */
  readonly subtree: Int32Array;
}

/** How many spine joints share the turn: enough that no single joint twists visibly. */
const TWIST_JOINTS = 3;

const rigs = new WeakMap<Database, UpperBodyRig>();

/**
 * The spine of a database's skeleton: its first joint by upperBodyRoot (features/upper-body.ts: the
 * hips' child that is not a leg and carries the largest subtree), then on down the middle: at the chest, the child
 * without a left/right counterpart (the neck, not a shoulder), the largest such.
 */
export function upperBodyRig(db: Database): UpperBodyRig {
  let rig = rigs.get(db);
  if (rig) return rig;
  const parents = db.skeleton.parents, J = parents.length;
  const size = new Int32Array(J).fill(1);
  for (let j = J - 1; j > 0; j--) if (parents[j] >= 0) size[parents[j]] += size[j];
  const partner = mirrorJointMap(db.skeleton.names);
  const chain: number[] = [];
  // The first joint by the rule upper-body masks use too (a pelvis holding only the legs is passed by);
  // no leg hangs below it, so the steps down from it need not leave the legs out.
  const first = upperBodyRoot(db.skeleton, db.roles);
  if (first >= 0) chain.push(first);
  let at = first;
  while (first >= 0 && chain.length < TWIST_JOINTS) {
    let best = -1;
    const centred = (j: number) => partner[j] === j;
    const better = (j: number) => best < 0 || (centred(j) !== centred(best) ? centred(j) : size[j] > size[best]);
    for (let j = 0; j < J; j++) if (parents[j] === at && better(j)) best = j;
    if (best < 0) break;
    chain.push(best);
    at = best;
  }
  const subtree: number[] = [];
  if (chain.length > 0) {
    const inside = new Uint8Array(J);
    for (let j = 0; j < J; j++) if (j === chain[0] || (parents[j] >= 0 && inside[parents[j]])) { inside[j] = 1; subtree.push(j); }
  }
  rig = { chain: Int32Array.from(chain), subtree: Int32Array.from(subtree) };
  rigs.set(db, rig);
  return rig;
}

const UP = new Float64Array([0, 1, 0]);
const AXIS = new Float64Array(3);
const TURN = new Float64Array(4);

/**
 * Turns the upper body of `host`'s pose by `angle` radians about the world's vertical, spread
 * evenly over the spine chain, and refreshes the world transforms below it. A joint's share φ
 * becomes a local rotation about the vertical expressed in its parent's frame:
 *   L' = (inverse(Wp) · Ry(φ) · Wp) · L = quatFromAxisAngle(inverse(Wp)·up, φ) · L
 * with Wp its parent's world rotation before the turn (shares add up along the chain, since turns
 * about one axis commute).
 */
export function twistUpperBody(host: TwistHost, parents: Int32Array, rig: UpperBodyRig, angle: number): void {
  const n = rig.chain.length;
  if (n === 0) return;
  const share = angle / n, h = 0.5 * share, s = Math.sin(h), c = Math.cos(h);
  for (let i = 0; i < n; i++) {
    const j = rig.chain[i], p = parents[j];
    quatInvRotateVec3(AXIS, 0, host.worldRotations, 4 * p, UP, 0);
    TURN[0] = AXIS[0] * s; TURN[1] = AXIS[1] * s; TURN[2] = AXIS[2] * s; TURN[3] = c;
    quatMultiply(host.rotations, 4 * j, TURN, 0, host.rotations, 4 * j);
  }
  for (let i = 0; i < rig.subtree.length; i++) host.updateWorldJoint(rig.subtree[i]);
}
