/**
 * Which way is up in a set of captures, and turning a set that stands along another axis upright.
 * This project works Y-up; BVH files say nothing about their axes, and a rig exported Z-up (some
 * 3ds Max and MotionBuilder exports, files converted from Z-up tools) would otherwise be imported
 * lying on its back: every feature, the floor and the facing measured along the wrong axis.
 *
 * The body says where up is, twice: in the rest pose (the skeleton's offsets) and in the motion
 * (every clip's frames): the direction from the middle of the feet to the hips. The set is turned
 * only when both point within UP_TOLERANCE of the same axis other than +Y, so that a Y-up rig whose
 * captures lie or crawl (motion sideways, rest pose upright) is left as it is. Rest poses are not
 * always upright (the shared Bandai Namco captures' rest pose lies along +X; their root rotation
 * stands them up), so a motion standing along another axis that the rest pose does not confirm is
 * not turned but reported (`unconfirmed`): `BuildOptions.up` (`build --up`) turns it.
 *
 * The turn is a change of basis by a signed permutation of the axes (a proper rotation by a multiple
 * of 90°): offsets and local translations are permuted, and so is the vector part of every local
 * rotation (q' = R q R⁻¹ is (R·v, w) for q = (v, w)). Values are moved, never computed: the turned
 * set's world positions are exactly the permuted originals.
 */
import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { forwardKinematics } from '../anim/pose.js';

export type UpAxis = '+x' | '-x' | '+y' | '-y' | '+z' | '-z';
export const UP_AXES: readonly UpAxis[] = ['+x', '-x', '+y', '-y', '+z', '-z'];

/** How far (radians) the body's up may lean from an axis and still name it (30°). */
export const UP_TOLERANCE = Math.PI / 6;
/** Frames of the motion looked at, at most (spread evenly over the set). */
const MOTION_SAMPLES = 2000;

export interface UpAxisFinding {
  /** The axis the set stands along: what the rest pose and the motion agree on, else +y. */
  axis: UpAxis;
  /** The nearest axis to the rest pose's up and its angle from it (radians); null without a rest direction. */
  rest: { axis: UpAxis; angle: number } | null;
  /** The same for the motion's up, over the sampled frames. */
  motion: { axis: UpAxis; angle: number } | null;
  /** 'detected' (from the data), 'given' (BuildOptions.up). */
  how: 'detected' | 'given';
  /** The axis the motion stands along when that is not +y and the rest pose does not confirm it (nothing turned), else null. */
  unconfirmed: UpAxis | null;
}

type V3 = [number, number, number];

/** The axis nearest to `v` and the angle between them (radians); null for a zero or non-finite vector. */
export function nearestAxis(v: V3): { axis: UpAxis; angle: number } | null {
  const n = Math.hypot(v[0], v[1], v[2]);
  if (!(n > 0 && Number.isFinite(n))) return null;
  let k = 0;
  for (let i = 1; i < 3; i++) if (Math.abs(v[i]) > Math.abs(v[k])) k = i;
  const axis = `${v[k] < 0 ? '-' : '+'}${'xyz'[k]}` as UpAxis;
  return { axis, angle: Math.acos(Math.min(1, Math.abs(v[k]) / n)) };
}

/** Middle of the feet to the hips, in world positions `wp` (3 per joint). */
function bodyUp(wp: ArrayLike<number>, hips: number, leftFoot: number, rightFoot: number): V3 {
  const out: V3 = [0, 0, 0];
  for (let k = 0; k < 3; k++) out[k] = wp[3 * hips + k] - 0.5 * (wp[3 * leftFoot + k] + wp[3 * rightFoot + k]);
  return out;
}

/** The rest pose's up (identity rotations, the skeleton's offsets): middle of the feet to the hips. */
export function restUp(skeleton: Skeleton, hips: number, leftFoot: number, rightFoot: number): V3 {
  const J = skeleton.names.length, wp = new Float64Array(3 * J);
  for (let j = 0; j < J; j++) {
    const p = skeleton.parents[j];
    for (let k = 0; k < 3; k++) wp[3 * j + k] = (p >= 0 ? wp[3 * p + k] : 0) + skeleton.offsets[3 * j + k];
  }
  return bodyUp(wp, hips, leftFoot, rightFoot);
}

/** The motion's up: the mean of the unit body-up directions over at most MOTION_SAMPLES frames of `clips`. */
export function motionUp(skeleton: Skeleton, clips: readonly Clip[], hips: number, leftFoot: number, rightFoot: number): V3 {
  const J = skeleton.names.length, total = clips.reduce((n, c) => n + c.frameCount, 0);
  const every = Math.max(1, Math.ceil(total / MOTION_SAMPLES));
  const wr = new Float64Array(4 * J), wp = new Float64Array(3 * J), sum: V3 = [0, 0, 0];
  let i = 0;
  for (const c of clips) {
    for (let f = 0; f < c.frameCount; f++, i++) {
      if (i % every !== 0) continue;
      forwardKinematics(skeleton.parents, c.rotations, f * J * 4, c.translations, f * J * 3, wr, wp);
      const u = bodyUp(wp, hips, leftFoot, rightFoot), n = Math.hypot(u[0], u[1], u[2]);
      if (n > 0 && Number.isFinite(n)) for (let k = 0; k < 3; k++) sum[k] += u[k] / n;
    }
  }
  return sum;
}

/** Where the set stands: the axis the rest pose and the motion both lie within UP_TOLERANCE of, else +y. */
export function detectUpAxis(skeleton: Skeleton, clips: readonly Clip[], hips: number, leftFoot: number, rightFoot: number): UpAxisFinding {
  const rest = nearestAxis(restUp(skeleton, hips, leftFoot, rightFoot));
  const motion = nearestAxis(motionUp(skeleton, clips, hips, leftFoot, rightFoot));
  const standing = motion !== null && motion.angle <= UP_TOLERANCE ? motion.axis : null;
  const agree = standing !== null && rest !== null && rest.axis === standing && rest.angle <= UP_TOLERANCE;
  return { axis: agree ? standing : '+y', rest, motion, how: 'detected', unconfirmed: !agree && standing !== null && standing !== '+y' ? standing : null };
}

/**
 * One line saying what the build did about the up axis, or null when the set stood along +y and
 * nothing is in doubt. `turnHint` ends the line when only the motion stands along another axis:
 * how to turn it from where the user is (the CLI's `--up`, the page's command line).
 */
export function upAxisNote(f: UpAxisFinding, turnHint: (axis: UpAxis) => string): string | null {
  if (f.axis !== '+y') return `the captures stand along ${f.axis} (${f.how === 'given' ? 'as given' : 'found from the rest pose and the motion'}): turned to stand along +y`;
  if (f.unconfirmed === null) return null;
  const degrees = Math.round(((f.motion?.angle ?? 0) * 180) / Math.PI);
  return `the captures stand along ${f.unconfirmed} (hips over feet within ${degrees}° of it), but the rest pose does not confirm it, so nothing was turned; ${turnHint(f.unconfirmed)}`;
}

/**
 * The change of basis turning `up` to +y, as a signed permutation: component i of a turned vector is
 * sign[i] · component from[i] of the original.
 */
function uprightBasis(up: UpAxis): { from: [number, number, number]; sign: [number, number, number] } {
  switch (up) {
    case '+y': return { from: [0, 1, 2], sign: [1, 1, 1] };
    case '-y': return { from: [0, 1, 2], sign: [1, -1, -1] }; // 180° about x
    case '+z': return { from: [0, 2, 1], sign: [1, 1, -1] }; // (x, y, z) -> (x, z, -y): -90° about x
    case '-z': return { from: [0, 2, 1], sign: [1, -1, 1] }; // (x, y, z) -> (x, -z, y): +90° about x
    case '+x': return { from: [1, 0, 2], sign: [-1, 1, 1] }; // (x, y, z) -> (-y, x, z): +90° about z
    case '-x': return { from: [1, 0, 2], sign: [1, -1, 1] }; // (x, y, z) -> (y, -x, z): -90° about z
  }
}

function pick(k: number, x: number, y: number, z: number): number {
  return k === 0 ? x : k === 1 ? y : z;
}

/** Applies the basis to every `stride`-th triple of `a` starting at `at` (in place). */
function turnTriples(a: Float64Array, at: number, stride: number, b: ReturnType<typeof uprightBasis>): void {
  for (let i = at; i + 2 < a.length; i += stride) {
    const x = a[i], y = a[i + 1], z = a[i + 2];
    a[i] = b.sign[0] * pick(b.from[0], x, y, z); a[i + 1] = b.sign[1] * pick(b.from[1], x, y, z); a[i + 2] = b.sign[2] * pick(b.from[2], x, y, z);
  }
}

/** The skeleton and clips of a set standing along `up`, turned to stand along +y (copies; +y returns them as they are). */
export function turnUpright(skeleton: Skeleton, clips: readonly Clip[], up: UpAxis): { skeleton: Skeleton; clips: Clip[] } {
  if (up === '+y') return { skeleton, clips: [...clips] };
  const b = uprightBasis(up);
  const offsets = Float64Array.from(skeleton.offsets), endSiteOffsets = Float64Array.from(skeleton.endSiteOffsets);
  turnTriples(offsets, 0, 3, b);
  turnTriples(endSiteOffsets, 0, 3, b);
  const turned = clips.map((c) => {
    const translations = Float64Array.from(c.translations), rotations = Float64Array.from(c.rotations);
    turnTriples(translations, 0, 3, b);
    // (x, y, z) of each quaternion: its vector part; w stays.
    turnTriples(rotations, 0, 4, b);
    return { ...c, translations, rotations };
  });
  return { skeleton: { ...skeleton, offsets, endSiteOffsets }, clips: turned };
}
