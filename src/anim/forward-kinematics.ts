/**
 * Forward kinematics: a joint's world transform from its parent's and its own local transform.
 * The one implementation every path uses (database build, import, runtime controller, foot IK).
 */
import type { Buf } from '../math/quat.js';

/**
 * Joint j's world transform from its parent's (position pp[po..], rotation pq[qo..]) and its local
 * translation localT[lt..] / rotation localR[lr..]:
 *   wp[3j..] = pp + quatRotateVec3(pq, localT)      wr[4j..] = quatMultiply(pq, localR)
 * Written out in scalars (the same operations, in the same order, as those two functions), since
 * it runs for every joint of every character each step; in two halves small enough for V8 to inline
 * into the loops that call them (one function was past its inlining size: a call per joint, 3% of a
 * crowd's step).
 */
export function composeJoint(
  wp: Buf, wr: Buf, j: number,
  pp: Buf, po: number, pq: Buf, qo: number,
  localT: Buf, lt: number, localR: Buf, lr: number,
): void {
  composePosition(wp, 3 * j, pp, po, pq, qo, localT, lt);
  composeRotation(wr, 4 * j, pq, qo, localR, lr);
}

/** wp[w..w+3) = pp[po..] + quatRotateVec3(pq[qo..], localT[lt..]) */
function composePosition(wp: Buf, w: number, pp: Buf, po: number, pq: Buf, qo: number, localT: Buf, lt: number): void {
  const qx = pq[qo], qy = pq[qo + 1], qz = pq[qo + 2], qw = pq[qo + 3];
  const vx = localT[lt], vy = localT[lt + 1], vz = localT[lt + 2];
  // v' = v + w t + q × t with t = 2 q × v
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  wp[w] = pp[po] + (vx + qw * tx + (qy * tz - qz * ty));
  wp[w + 1] = pp[po + 1] + (vy + qw * ty + (qz * tx - qx * tz));
  wp[w + 2] = pp[po + 2] + (vz + qw * tz + (qx * ty - qy * tx));
}

/** wr[w..w+4) = quatMultiply(pq[qo..], localR[lr..]) */
function composeRotation(wr: Buf, w: number, pq: Buf, qo: number, localR: Buf, lr: number): void {
  const qx = pq[qo], qy = pq[qo + 1], qz = pq[qo + 2], qw = pq[qo + 3];
  const bx = localR[lr], by = localR[lr + 1], bz = localR[lr + 2], bw = localR[lr + 3];
  wr[w] = qw * bx + qx * bw + qy * bz - qz * by;
  wr[w + 1] = qw * by - qx * bz + qy * bw + qz * bx;
  wr[w + 2] = qw * bz + qx * by - qy * bx + qz * bw;
  wr[w + 3] = qw * bw - qx * bx - qy * by - qz * bz;
}

/**
 * World transforms of a whole pose placed by a root transform (rootPos[ro..], rootRot[rq..]):
 * joints without a parent hang from the root. Joints are parents-first, so one pass suffices.
 */
export function posedForwardKinematics(
  parents: Int32Array, localT: Buf, localR: Buf,
  rootPos: Buf, ro: number, rootRot: Buf, rq: number,
  worldPos: Buf, worldRot: Buf,
): void {
  const J = parents.length;
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    if (p < 0) composeJoint(worldPos, worldRot, j, rootPos, ro, rootRot, rq, localT, 3 * j, localR, 4 * j);
    else composeJoint(worldPos, worldRot, j, worldPos, 3 * p, worldRot, 4 * p, localT, 3 * j, localR, 4 * j);
  }
}
