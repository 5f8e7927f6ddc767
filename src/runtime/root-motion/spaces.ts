/**
 * The two kinds of root a character can have, as "delta spaces" that share one algebra:
 * - 3D:  transform [px, py, pz, qx, qy, qz, qw], delta [tx, ty, tz, qx, qy, qz, qw] (ROOT_XFORM_SIZE 7)
 * - yaw: transform [x, y, z, yaw],               delta [dx, dy, dz, dyaw]           (YAW_XFORM_SIZE 4)
 * A delta is the motion over an interval expressed in the frame the interval STARTS in, so neither
 * a track's origin nor its absolute heading survives in it. Each space supplies the unchecked
 * operations (between, blend, compose, identity); local.ts writes every public function once over
 * them, with the argument checks.
 *
 * A positive yaw turns +Z towards +X (quatFromYaw): world = (x·cos + z·sin, y, −x·sin + z·cos).
 */
import {
  type Buf, quatInvMultiply, quatInvRotateVec3, quatMultiply, quatNormalize, quatRotateVec3, quatSetIdentity, quatSlerp,
} from '../../math/quat.js';
import { wrapAngle } from '../../math/angle.js';
import { lerpDisplacement, requireFiniteRange, requireFiniteResult, requireXform } from './checks.js';

export const ROOT_XFORM_SIZE = 7;
export const YAW_XFORM_SIZE = 4;

export interface RootDeltaSpace {
  /** Values per transform and per delta. */
  readonly size: number;
  /** Throws unless buf[o..] is a valid transform or delta of this space (`fn`, `name` for the message). */
  requireValid(fn: string, name: string, buf: Buf, o: number): void;
  /** out = the delta from transform `start` to transform `end` (checked for overflow; out may alias). */
  between(fn: string, out: Buf, oo: number, start: Buf, so: number, end: Buf, eo: number): void;
  /** out = blend of deltas a and b with b's weight w (out may alias). */
  blend(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number, w: number): void;
  /** out = `first` then `second` (second expressed in the frame first ends in; out may alias). */
  compose(out: Buf, oo: number, first: Buf, fo: number, second: Buf, so: number): void;
  /** out = the delta that does nothing. */
  identity(out: Buf, oo: number): void;
  /** Values of out[oo..] that must be finite after a composition (3D: the translation). */
  readonly finiteAfterCompose: number;
}

const deltaScratch = new Float64Array(7);
const composeScratch = new Float64Array(7);

/** Translation + quaternion: translation lerp, rotation slerp along the short path. */
export const SPACE_3D: RootDeltaSpace = {
  size: ROOT_XFORM_SIZE,
  finiteAfterCompose: 3,
  requireValid: requireXform,
  between(fn, out, oo, start, so, end, eo) {
    // Built in scratch so that out may alias an input.
    const d = deltaScratch;
    d[0] = requireFiniteResult(fn, 'end.x - start.x', end[eo] - start[so]);
    d[1] = requireFiniteResult(fn, 'end.y - start.y', end[eo + 1] - start[so + 1]);
    d[2] = requireFiniteResult(fn, 'end.z - start.z', end[eo + 2] - start[so + 2]);
    // translation: inverse(startRot)·(endPos − startPos); rotation: inverse(startRot)·endRot
    quatInvRotateVec3(d, 0, start, so + 3, d, 0);
    quatInvMultiply(d, 3, start, so + 3, end, eo + 3);
    quatNormalize(d, 3, d, 3);
    for (let i = 0; i < 7; i++) out[oo + i] = d[i];
  },
  blend(out, oo, a, ao, b, bo, w) {
    const tx = lerpDisplacement(a[ao], b[bo], w);
    const ty = lerpDisplacement(a[ao + 1], b[bo + 1], w);
    const tz = lerpDisplacement(a[ao + 2], b[bo + 2], w);
    quatSlerp(out, oo + 3, a, ao + 3, b, bo + 3, w);
    out[oo] = tx; out[oo + 1] = ty; out[oo + 2] = tz;
  },
  compose(out, oo, first, fo, second, so) {
    // position = first.t + first.q·second.t; rotation = first.q·second.q (in scratch: out may alias)
    const c = composeScratch;
    quatRotateVec3(c, 0, first, fo + 3, second, so);
    c[0] += first[fo]; c[1] += first[fo + 1]; c[2] += first[fo + 2];
    quatMultiply(c, 3, first, fo + 3, second, so + 3);
    quatNormalize(c, 3, c, 3);
    for (let i = 0; i < 7; i++) out[oo + i] = c[i];
  },
  identity(out, oo) {
    out[oo] = 0; out[oo + 1] = 0; out[oo + 2] = 0;
    quatSetIdentity(out, oo + 3);
  },
};

/** Ground position + facing angle: every component blended linearly (turns are short-path). */
export const SPACE_YAW: RootDeltaSpace = {
  size: YAW_XFORM_SIZE,
  finiteAfterCompose: 4,
  requireValid(fn, name, buf, o) {
    requireFiniteRange(fn, name, buf, o, 4);
  },
  between(fn, out, oo, start, so, end, eo) {
    const dx = requireFiniteResult(fn, 'end.x - start.x', end[eo] - start[so]);
    const dy = requireFiniteResult(fn, 'end.y - start.y', end[eo + 1] - start[so + 1]);
    const dz = requireFiniteResult(fn, 'end.z - start.z', end[eo + 2] - start[so + 2]);
    // One interval turns less than half a revolution: the turn is the short way round.
    const dyaw = wrapAngle(requireFiniteResult(fn, 'end.yaw - start.yaw', end[eo + 3] - start[so + 3]));
    // The displacement rotated into the start-facing frame: rotY(−start.yaw)·(dx, dy, dz).
    const c = Math.cos(start[so + 3]), s = Math.sin(start[so + 3]);
    out[oo] = dx * c - dz * s;
    out[oo + 1] = dy;
    out[oo + 2] = dx * s + dz * c;
    out[oo + 3] = dyaw;
  },
  blend(out, oo, a, ao, b, bo, w) {
    for (let i = 0; i < 4; i++) out[oo + i] = lerpDisplacement(a[ao + i], b[bo + i], w);
  },
  compose(out, oo, first, fo, second, so) {
    // position = first.p + rotY(first.yaw)·second.p; yaw = first.yaw + second.yaw
    const yaw = first[fo + 3];
    const c = Math.cos(yaw), s = Math.sin(yaw);
    const sx = second[so], sy = second[so + 1], sz = second[so + 2];
    const x = first[fo] + sx * c + sz * s;
    const y = first[fo + 1] + sy;
    const z = first[fo + 2] - sx * s + sz * c;
    const turn = wrapAngle(yaw + second[so + 3]);
    out[oo] = x; out[oo + 1] = y; out[oo + 2] = z; out[oo + 3] = turn;
  },
  identity(out, oo) {
    out[oo] = 0; out[oo + 1] = 0; out[oo + 2] = 0; out[oo + 3] = 0;
  },
};
