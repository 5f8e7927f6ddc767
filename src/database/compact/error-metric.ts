/**
 * The error metric ACL uses: what a skinned vertex would see. Each joint carries virtual points
 * VIRTUAL_POINT_DISTANCE along each of its local axes, both ways; a pose's error at a joint is the largest
 * distance between where those points land in object space (through the whole hierarchy, so an
 * error at the hips counts at the toes) with the decoded pose and with the original one.
 */

/** Distance of the virtual points from their joint (m): ACL's default 3 cm. */
export const VIRTUAL_POINT_DISTANCE = 0.03;
/** The largest error the encoder allows (m): ACL's default 0.01 cm. */
export const ERROR_THRESHOLD = 0.0001;

/**
 * Joints in an order where every parent comes before its children (the file's order when it
 * already is one, as BVH's depth-first order always is).
 */
export function parentsFirstOrder(parents: Int32Array): Int32Array {
  const J = parents.length;
  const order: number[] = [], placed = new Uint8Array(J);
  const visit = (j: number, depth: number): void => {
    if (placed[j]) return;
    if (depth > J) throw new Error('parentsFirstOrder: the skeleton has a cycle');
    if (parents[j] >= 0) visit(parents[j], depth + 1);
    placed[j] = 1;
    order.push(j);
  };
  for (let j = 0; j < J; j++) visit(j, 0);
  return Int32Array.from(order);
}

/** For every joint, itself and its descendants, parents first. */
export function subtrees(parents: Int32Array, order: Int32Array): Int32Array[] {
  const J = parents.length;
  const isUnder = (c: number, j: number): boolean => {
    for (let a = c; a >= 0; a = parents[a]) if (a === j) return true;
    return false;
  };
  const out: Int32Array[] = [];
  for (let j = 0; j < J; j++) out.push(Int32Array.from(Array.from(order).filter((c) => isUnder(c, j))));
  return out;
}

/**
 * World (object-space) transforms of `joints` (parents first) at one frame: local rotations and
 * translations of frame `frame` (J joints per frame) into outRot/outPos at slot `slot` (J per slot).
 * The parents of the first joints must already be in out at that slot.
 */
export function worldOfJoints(
  parents: Int32Array, joints: Int32Array, J: number,
  rot: ArrayLike<number>, pos: ArrayLike<number>, frame: number,
  outRot: Float64Array, outPos: Float64Array, slot: number,
): void {
  for (let i = 0; i < joints.length; i++) {
    const j = joints[i], p = parents[j];
    const l4 = (frame * J + j) * 4, l3 = (frame * J + j) * 3, o4 = (slot * J + j) * 4, o3 = (slot * J + j) * 3;
    const lx = rot[l4], ly = rot[l4 + 1], lz = rot[l4 + 2], lw = rot[l4 + 3];
    const tx = pos[l3], ty = pos[l3 + 1], tz = pos[l3 + 2];
    if (p < 0) {
      outRot[o4] = lx; outRot[o4 + 1] = ly; outRot[o4 + 2] = lz; outRot[o4 + 3] = lw;
      outPos[o3] = tx; outPos[o3 + 1] = ty; outPos[o3 + 2] = tz;
      continue;
    }
    const p4 = (slot * J + p) * 4, p3 = (slot * J + p) * 3;
    const px = outRot[p4], py = outRot[p4 + 1], pz = outRot[p4 + 2], pw = outRot[p4 + 3];
    // world rotation = parent * local
    outRot[o4] = pw * lx + px * lw + py * lz - pz * ly;
    outRot[o4 + 1] = pw * ly - px * lz + py * lw + pz * lx;
    outRot[o4 + 2] = pw * lz + px * ly - py * lx + pz * lw;
    outRot[o4 + 3] = pw * lw - px * lx - py * ly - pz * lz;
    // world position = parent position + parent rotation applied to the local translation
    const cx = py * tz - pz * ty + pw * tx, cy = pz * tx - px * tz + pw * ty, cz = px * ty - py * tx + pw * tz;
    outPos[o3] = outPos[p3] + tx + 2 * (py * cz - pz * cy);
    outPos[o3 + 1] = outPos[p3 + 1] + ty + 2 * (pz * cx - px * cz);
    outPos[o3 + 2] = outPos[p3 + 2] + tz + 2 * (px * cy - py * cx);
  }
}

/**
 * The largest distance between the virtual points of a joint's two world transforms (a at ia,
 * b at ib; rotations 4 floats, positions 3).
 */
export function virtualPointError(
  aRot: Float64Array, aPos: Float64Array, ia: number,
  bRot: Float64Array, bPos: Float64Array, ib: number,
): number {
  return Math.sqrt(virtualPointErrorSquared(aRot, aPos, ia, bRot, bPos, ib));
}

/**
 * virtualPointError squared: what the encoder compares with the bound squared, trial after trial
 * (Math.hypot, six calls per joint, was two thirds of the encoder's time). Uses the rotation
 * matrices' columns: the point along local axis k is position + d * column k.
 */
export function virtualPointErrorSquared(
  aRot: Float64Array, aPos: Float64Array, ia: number,
  bRot: Float64Array, bPos: Float64Array, ib: number,
): number {
  const d = VIRTUAL_POINT_DISTANCE;
  const dx = aPos[ia * 3] - bPos[ib * 3], dy = aPos[ia * 3 + 1] - bPos[ib * 3 + 1], dz = aPos[ia * 3 + 2] - bPos[ib * 3 + 2];
  const ax = aRot[ia * 4], ay = aRot[ia * 4 + 1], az = aRot[ia * 4 + 2], aw = aRot[ia * 4 + 3];
  const bx = bRot[ib * 4], by = bRot[ib * 4 + 1], bz = bRot[ib * 4 + 2], bw = bRot[ib * 4 + 3];
  // Columns of the rotation matrices, differenced (q and -q give the same matrix).
  const c0x = -2 * (ay * ay + az * az) + 2 * (by * by + bz * bz), c0y = 2 * (ax * ay + aw * az) - 2 * (bx * by + bw * bz), c0z = 2 * (ax * az - aw * ay) - 2 * (bx * bz - bw * by);
  const c1x = 2 * (ax * ay - aw * az) - 2 * (bx * by - bw * bz), c1y = -2 * (ax * ax + az * az) + 2 * (bx * bx + bz * bz), c1z = 2 * (ay * az + aw * ax) - 2 * (by * bz + bw * bx);
  const c2x = 2 * (ax * az + aw * ay) - 2 * (bx * bz + bw * by), c2y = 2 * (ay * az - aw * ax) - 2 * (by * bz - bw * bx), c2z = -2 * (ax * ax + ay * ay) + 2 * (bx * bx + by * by);
  // Points on both sides of the joint: a mirrored copy's joint sees its original's points reflected
  // through one local axis, so measuring both sides bounds the copies' error too.
  // |p ± d c|² = |p|² + d²|c|² ± 2d p·c: the larger side is the one where ± is the sign of p·c.
  const pp = dx * dx + dy * dy + dz * dz;
  const e0 = pp + d * d * (c0x * c0x + c0y * c0y + c0z * c0z) + 2 * d * Math.abs(dx * c0x + dy * c0y + dz * c0z);
  const e1 = pp + d * d * (c1x * c1x + c1y * c1y + c1z * c1z) + 2 * d * Math.abs(dx * c1x + dy * c1y + dz * c1z);
  const e2 = pp + d * d * (c2x * c2x + c2y * c2y + c2z * c2z) + 2 * d * Math.abs(dx * c2x + dy * c2y + dz * c2z);
  return Math.max(e0, e1, e2);
}
