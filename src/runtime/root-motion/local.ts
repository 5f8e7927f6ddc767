/**
 * Root motion as local deltas, for both kinds of root (spaces.ts): the delta between two samples of
 * a track, blending two deltas, composing them, applying one to the character, one blended playback
 * step, and a looping clip's delta across its wrap. Each operation is written once over a
 * RootDeltaSpace; the exported 3D and yaw functions are that operation in their space.
 */
import type { Buf } from '../../math/quat.js';
import { requireFiniteRange, requireWeight, requireWraps } from './checks.js';
import { SPACE_3D, SPACE_YAW, type RootDeltaSpace } from './spaces.js';

// Scratch per operation (7 values fit both spaces). Never held across calls.
const blendA = new Float64Array(7);
const blendB = new Float64Array(7);
const loopFirst = new Float64Array(7);
const loopCycle = new Float64Array(7);
const loopPower = new Float64Array(7);
const trackStart = new Float64Array(7);
const trackEnd = new Float64Array(7);

function deltaBetween(space: RootDeltaSpace, fn: string, out: Buf, oo: number, start: Buf, so: number, end: Buf, eo: number): Buf {
  space.requireValid(fn, 'start', start, so);
  space.requireValid(fn, 'end', end, eo);
  space.between(fn, out, oo, start, so, end, eo);
  return out;
}

function blendDeltas(space: RootDeltaSpace, fn: string, out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number, weight: number): Buf {
  space.requireValid(fn, 'a', a, ao);
  space.requireValid(fn, 'b', b, bo);
  requireWeight(fn, 'weight', weight);
  space.blend(out, oo, a, ao, b, bo, weight);
  requireFiniteRange(fn, 'the blended delta', out, oo, space.size);
  return out;
}

function composeDeltas(space: RootDeltaSpace, fn: string, what: string, firstName: string, secondName: string, out: Buf, oo: number, first: Buf, fo: number, second: Buf, so: number): Buf {
  space.requireValid(fn, firstName, first, fo);
  space.requireValid(fn, secondName, second, so);
  space.compose(out, oo, first, fo, second, so);
  requireFiniteRange(fn, what, out, oo, space.finiteAfterCompose);
  return out;
}

/**
 * One playback step of a two-track blend, in place on `character`: the local delta of A over
 * [aStart, aEnd] and of B over [bStart, bEnd], blended with B's weight, applied to the character.
 * Neither track's origin nor absolute heading reaches the character.
 */
function blendStep(
  space: RootDeltaSpace, fn: string, character: Buf, co: number,
  aStart: Buf, aso: number, aEnd: Buf, aeo: number, bStart: Buf, bso: number, bEnd: Buf, beo: number, weight: number,
): Buf {
  requireWeight(fn, 'weight', weight);
  deltaBetween(space, fn, blendA, 0, aStart, aso, aEnd, aeo);
  deltaBetween(space, fn, blendB, 0, bStart, bso, bEnd, beo);
  space.blend(blendA, 0, blendA, 0, blendB, 0, weight);
  return composeDeltas(space, fn, 'the new position', 'xform', 'delta', character, co, character, co, blendA, 0);
}

/**
 * The local delta from the transform at t0 to the transform at t1 of a looping clip when playback
 * wrapped `wraps` times, composed as
 *   delta(atT0 → clipEnd) ∘ cycle^(wraps − 1) ∘ delta(clipStart → atT1),  cycle = delta(clipStart → clipEnd),
 * so a clip that turns while it walks keeps turning across the wrap.
 */
function loopDelta(
  space: RootDeltaSpace, fn: string, out: Buf, oo: number,
  clipStart: Buf, cso: number, clipEnd: Buf, ceo: number, atT0: Buf, a0o: number, atT1: Buf, a1o: number, wraps: number,
): Buf {
  requireWraps(fn, wraps);
  if (wraps === 0) return deltaBetween(space, fn, out, oo, atT0, a0o, atT1, a1o);
  deltaBetween(space, fn, loopFirst, 0, atT0, a0o, clipEnd, ceo);
  deltaBetween(space, fn, loopCycle, 0, clipStart, cso, clipEnd, ceo);
  // cycle^(wraps − 1) by repeated squaring: powers of one transform commute, so order is free.
  space.identity(loopPower, 0);
  let e = wraps - 1;
  while (e > 0) {
    if (e % 2 === 1) space.compose(loopPower, 0, loopPower, 0, loopCycle, 0);
    e = Math.floor(e / 2);
    if (e > 0) space.compose(loopCycle, 0, loopCycle, 0, loopCycle, 0);
  }
  space.compose(loopFirst, 0, loopFirst, 0, loopPower, 0);
  deltaBetween(space, fn, loopPower, 0, clipStart, cso, atT1, a1o);
  space.compose(out, oo, loopFirst, 0, loopPower, 0);
  requireFiniteRange(fn, 'the accumulated delta', out, oo, space.finiteAfterCompose);
  return out;
}

// ---------------------------------------------------------------------------------------------
// 3D root [px, py, pz, qx, qy, qz, qw].

/**
 * Local delta of one root track over an interval: translation inverse(startRot)·(endPos − startPos)
 * and rotation inverse(startRot)·endRot. out: [tx, ty, tz, qx, qy, qz, qw]; out may alias an input.
 */
export function rootDeltaLocal(out: Buf, oo: number, start: Buf, so: number, end: Buf, eo: number): Buf {
  return deltaBetween(SPACE_3D, 'rootDeltaLocal', out, oo, start, so, end, eo);
}

/**
 * {@link rootDeltaLocal} between two frames of a root track stored as separate flat arrays
 * (positions frames*3, rotations frames*4, as src/features/root.ts writes them).
 */
export function rootDeltaLocalFromTrack(out: Buf, oo: number, positions: Buf, rotations: Buf, frame0: number, frame1: number): Buf {
  const fn = 'rootDeltaLocalFromTrack';
  const frames = Math.min(Math.floor(positions.length / 3), Math.floor(rotations.length / 4));
  requireFrame(fn, 'frame0', frame0, frames);
  requireFrame(fn, 'frame1', frame1, frames);
  copyTrackSample(trackStart, positions, rotations, frame0);
  copyTrackSample(trackEnd, positions, rotations, frame1);
  return deltaBetween(SPACE_3D, 'rootDeltaLocal', out, oo, trackStart, 0, trackEnd, 0);
}

/** Blend two local deltas: translation lerp, rotation slerp along the short path, with B's weight. */
export function blendRootDeltaLocal(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number, weight: number): Buf {
  return blendDeltas(SPACE_3D, 'blendRootDeltaLocal', out, oo, a, ao, b, bo, weight);
}

/** Delta of doing `first` then `second` (second is expressed in the frame first ends in). */
export function composeRootDeltaLocal(out: Buf, oo: number, first: Buf, fo: number, second: Buf, so: number): Buf {
  return composeDeltas(SPACE_3D, 'composeRootDeltaLocal', 'the composed delta', 'first', 'second', out, oo, first, fo, second, so);
}

/**
 * Apply a local delta to the character's transform: position += rotation·delta.t (in the frame the
 * character faces at the START of the interval, matching how the delta was measured), then
 * rotation = rotation·delta.q. out may alias xform (in-place update).
 */
export function applyRootDeltaLocal(out: Buf, oo: number, xform: Buf, xo: number, delta: Buf, dOff: number): Buf {
  return composeDeltas(SPACE_3D, 'applyRootDeltaLocal', 'the new position', 'xform', 'delta', out, oo, xform, xo, delta, dOff);
}

/** One blended playback step applied in place to `character` ([px, py, pz, qx, qy, qz, qw]). */
export function blendRootMotionLocal(
  character: Buf, co: number, aStart: Buf, aso: number, aEnd: Buf, aeo: number,
  bStart: Buf, bso: number, bEnd: Buf, beo: number, weight: number,
): Buf {
  return blendStep(SPACE_3D, 'blendRootMotionLocal', character, co, aStart, aso, aEnd, aeo, bStart, bso, bEnd, beo, weight);
}

/** A looping clip's local delta across `wraps` wraps (see loopDelta). out: a local delta. */
export function loopRootDeltaLocal(
  out: Buf, oo: number, clipStart: Buf, cso: number, clipEnd: Buf, ceo: number,
  atT0: Buf, a0o: number, atT1: Buf, a1o: number, wraps: number,
): Buf {
  return loopDelta(SPACE_3D, 'loopRootDeltaLocal', out, oo, clipStart, cso, clipEnd, ceo, atT0, a0o, atT1, a1o, wraps);
}

// ---------------------------------------------------------------------------------------------
// Yaw-only root [x, y, z, yaw]: the common ground-projected root with a facing angle.

/** Local delta of a yaw root track: the displacement in the start-facing frame and the short-way turn. */
export function yawRootDeltaLocal(out: Buf, oo: number, start: Buf, so: number, end: Buf, eo: number): Buf {
  return deltaBetween(SPACE_YAW, 'yawRootDeltaLocal', out, oo, start, so, end, eo);
}

/** Blend two yaw deltas with B's weight: every component linearly (turns are short-path). */
export function blendYawRootDeltaLocal(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number, weight: number): Buf {
  return blendDeltas(SPACE_YAW, 'blendYawRootDeltaLocal', out, oo, a, ao, b, bo, weight);
}

/** Yaw delta of doing `first` then `second`. out may alias either input. */
export function composeYawRootDeltaLocal(out: Buf, oo: number, first: Buf, fo: number, second: Buf, so: number): Buf {
  return composeDeltas(SPACE_YAW, 'composeYawRootDeltaLocal', 'the composed delta', 'first', 'second', out, oo, first, fo, second, so);
}

/** Apply a yaw delta to the character: position += rotY(yaw)·delta.t, yaw += dyaw (kept in (−π, π]). */
export function applyYawRootDeltaLocal(out: Buf, oo: number, xform: Buf, xo: number, delta: Buf, dOff: number): Buf {
  return composeDeltas(SPACE_YAW, 'applyYawRootDeltaLocal', 'the new transform', 'xform', 'delta', out, oo, xform, xo, delta, dOff);
}

/** Yaw version of {@link blendRootMotionLocal}: one blended step applied in place to `character`. */
export function blendYawRootMotionLocal(
  character: Buf, co: number, aStart: Buf, aso: number, aEnd: Buf, aeo: number,
  bStart: Buf, bso: number, bEnd: Buf, beo: number, weight: number,
): Buf {
  return blendStep(SPACE_YAW, 'blendYawRootMotionLocal', character, co, aStart, aso, aEnd, aeo, bStart, bso, bEnd, beo, weight);
}

/** Yaw version of {@link loopRootDeltaLocal}. out: [dx, dy, dz, dyaw] in the frame at t0. */
export function loopYawRootDeltaLocal(
  out: Buf, oo: number, clipStart: Buf, cso: number, clipEnd: Buf, ceo: number,
  atT0: Buf, a0o: number, atT1: Buf, a1o: number, wraps: number,
): Buf {
  return loopDelta(SPACE_YAW, 'loopYawRootDeltaLocal', out, oo, clipStart, cso, clipEnd, ceo, atT0, a0o, atT1, a1o, wraps);
}

function requireFrame(fn: string, name: string, f: number, frames: number): void {
  if (!(Number.isInteger(f) && f >= 0 && f < frames)) {
    throw new RangeError(`${fn}: ${name} must be an integer frame in [0, ${frames - 1}], got ${String(f)}`);
  }
}

function copyTrackSample(out: Float64Array, positions: Buf, rotations: Buf, f: number): void {
  out[0] = positions[3 * f]; out[1] = positions[3 * f + 1]; out[2] = positions[3 * f + 2];
  out[3] = rotations[4 * f]; out[4] = rotations[4 * f + 1]; out[5] = rotations[4 * f + 2]; out[6] = rotations[4 * f + 3];
}
