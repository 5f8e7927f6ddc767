/**
 * What a database's captures say about the body where it meets the ground, derived once per
 * database from its poses (one pass of forward kinematics over every frame, for the legs and the
 * joints above them, then cached):
 * - where each foot joint stands when planted: its low percentile height over every frame (the
 *   floor is y = 0). A toe joint of one rig sits 2 cm above the sole, another's at the floor, an
 *   ankle 8 cm or 12 cm up: heights "above the ground" mean nothing until this is subtracted. Foot
 *   IK reads it to know when a free foot is on the ground; the quality measures count skate from
 *   it (Zhang et al. 2018);
 * - how each leg's contact point (foot-ik/rig.ts) moves from every frame to the next, in that
 *   frame's root frame: what the captured foot does, which a free foot near the ground follows
 *   (foot-ik.ts) instead of what transitions and root corrections add to it;
 * - the hips' height in every frame: what the body's height is, as captured, at the frame the
 *   engine plays (the quality measures compare the output's with it);
 * - where each contact ends: the frames whose contact label the next frame of the clip does not
 *   carry (a foot that lands there is lifting off; foot IK plants no lock there);
 * - how suddenly the captured feet ever change their speed over the floor in a frame: what the
 *   ground's hold on a landing foot may change of its velocity in a step (foot-ik/offsets.ts);
 * - how suddenly the captured body (the hips) ever changes its velocity in a frame: how fast the
 *   limit of the root's adjustment towards the simulated trajectory may grow in a step
 *   (controller/root-adjustment.ts), and, up and down, how suddenly foot IK's lowering of the hips
 *   may change its speed (foot-ik/hips.ts);
 * - how suddenly a captured knee ever changes the speed it bends or straightens at: how suddenly
 *   foot IK may change a free leg's bend on uneven ground (foot-ik/knee-bend.ts).
 * The velocities' "how suddenly ever" figures are taken through a median of three rates
 * (largestRateChange): a capture glitch of a few frames sets none of them.
 */
import type { Database } from '../database/database.js';
import { poseSource } from '../database/pose-source.js';
import { forwardKinematicsOf, jointsAbove } from '../anim/pose.js';
import { quatInvRotateVec3 } from '../math/quat.js';
import { contactJoints } from '../features/contacts.js';
import { legBendJoints } from '../features/leg-chains.js';
import { chainBendAngle } from '../math/two-bone-ik.js';

/** The percentile (as a fraction) of a foot joint's heights taken as its planted height. */
export const REST_HEIGHT_QUANTILE = 0.01;

export interface CapturedData {
  /** Planted heights (m) of the left toe, right toe, left ankle, right ankle (NaN for a toe the rig lacks). */
  readonly restHeights: Float64Array;
  /**
   * Per frame f, per leg (left, right): the contact point's displacement from frame f to f + 1
   * (to f from f − 1 on a clip's last frame), in frame f's root frame (m per frame): N * 6 values.
   */
  readonly contactMotion: Float32Array;
  /** Per frame f, per leg: the contact point's height above its planted height (m): N * 2 values. */
  readonly contactHeight: Float32Array;
  /** Per frame: the hips joint's height above the floor (m). */
  readonly hipsHeight: Float32Array;
  /**
   * Per frame: the contact bits (CONTACT_LEFT, CONTACT_RIGHT) of the frame that its clip's next
   * frame does not carry: the contact's last frame. A looping clip's last frame continues into its
   * first; another clip's last frame ends nothing (what follows is not known).
   */
  readonly contactEnds: Uint8Array;
  /**
   * The largest change of a contact point's horizontal velocity from one frame to the next within
   * a clip (m/s, either leg): how suddenly the captured feet ever start or stop, e.g. at a landing.
   * Infinity where no clip has three frames.
   */
  readonly contactVelocityChangeMax: number;
  /**
   * The largest change of the hips' horizontal velocity from one frame to the next within a clip
   * (m/s): how suddenly the captured body ever speeds up, slows down or turns. Infinity where no
   * clip has three frames.
   */
  readonly bodyVelocityChangeMax: number;
  /**
   * The largest change of the hips' vertical velocity from one frame to the next within a clip
   * (m/s): how suddenly the captured body ever starts or stops rising or sinking (a landing, a
   * crouch). Infinity where no clip has three frames.
   */
  readonly bodyVerticalVelocityChangeMax: number;
  /**
   * The largest change of a knee's bend rate (the angle between thigh and shin, 0 straight) from
   * one frame to the next within a clip, per second (rad/s²): |φ(f+1) − 2φ(f) + φ(f−1)|·fps², either
   * leg. Infinity where no clip has three frames.
   */
  readonly kneeBendAccelerationMax: number;
}

const cache = new WeakMap<Database, CapturedData>();

/** The captured data of `db` (computed on first use, then cached per database). */
export function capturedData(db: Database): CapturedData {
  let d = cache.get(db);
  if (!d) {
    const source = poseSource(db);
    d = source === db ? computeCapturedData(db) : capturedData(source);
    cache.set(db, d);
  }
  return d;
}

/**
 * Registers captured data computed elsewhere for `db`: a simulation's worker threads take the main
 * thread's (posted with the database, its arrays shared) instead of running forward kinematics over
 * every frame again (120 ms a thread for the built-in database).
 */
export function adoptCapturedData(db: Database, data: CapturedData): CapturedData {
  cache.set(db, data);
  return data;
}

export function computeCapturedData(db: Database): CapturedData {
  const J = db.skeleton.names.length, N = db.frameCount, parents = db.skeleton.parents, r = db.roles;
  const feet = [r.leftToe, r.rightToe, r.leftFoot, r.rightFoot];
  const [cl, cr] = contactJoints(r);
  const heights = feet.map((j) => (j >= 0 && N > 0 ? new Float64Array(N) : null));
  // World positions of the two contact points per frame (x, y, z each).
  const contact = new Float64Array(N * 6), hipsHeight = new Float32Array(N), hips = new Float64Array(N * 3);
  const wr = new Float64Array(4 * J), wp = new Float64Array(3 * J), rot = new Float64Array(4 * J), pos = new Float64Array(3 * J);
  // Only the joints that place the feet, the contact points and the hips (a third to a half of a
  // skeleton with arms and fingers), read into float64 for the math helpers.
  const placed = jointsAbove(parents, [...feet, cl, cr, r.hips]);
  // Each leg's hip, knee and ankle (the joints a leg bends at, foot-ik/rig.ts): per frame, the knee's bend.
  const legJoints = [r.leftFoot, r.rightFoot].map((foot) => (foot >= 0 ? { foot, ...legBendJoints(db.skeleton, r.hips, foot) } : null));
  const bend = new Float64Array(N * 2);
  for (let f = 0; f < N; f++) {
    for (let i = 0; i < placed.length; i++) {
      const j = placed[i], sr = f * 4 * J + 4 * j, st = f * 3 * J + 3 * j;
      rot[4 * j] = db.rotations[sr]; rot[4 * j + 1] = db.rotations[sr + 1]; rot[4 * j + 2] = db.rotations[sr + 2]; rot[4 * j + 3] = db.rotations[sr + 3];
      pos[3 * j] = db.translations[st]; pos[3 * j + 1] = db.translations[st + 1]; pos[3 * j + 2] = db.translations[st + 2];
    }
    forwardKinematicsOf(parents, placed, rot, 0, pos, 0, wr, wp);
    for (let k = 0; k < 4; k++) { const h = heights[k]; if (h) h[f] = wp[3 * feet[k] + 1]; }
    for (let d = 0; d < 3; d++) { contact[6 * f + d] = wp[3 * cl + d]; contact[6 * f + 3 + d] = wp[3 * cr + d]; }
    hipsHeight[f] = wp[3 * r.hips + 1];
    for (let d = 0; d < 3; d++) hips[3 * f + d] = wp[3 * r.hips + d];
    for (let leg = 0; leg < 2; leg++) { const l = legJoints[leg]; bend[2 * f + leg] = l && l.hip >= 0 && l.knee >= 0 ? chainBendAngle(wp, l.hip, l.knee, l.foot) : 0; }
  }
  const contactMotion = new Float32Array(N * 6);
  const q = new Float64Array(4), v = new Float64Array(3), out = new Float64Array(3);
  for (const clip of db.clips) {
    for (let k = 0; k < clip.count; k++) {
      const f = clip.start + k;
      const a = clip.count === 1 ? f : k < clip.count - 1 ? f : f - 1, b = clip.count === 1 ? f : a + 1;
      for (let i = 0; i < 4; i++) q[i] = db.rootRotations[4 * f + i];
      for (let leg = 0; leg < 2; leg++) {
        for (let d = 0; d < 3; d++) v[d] = contact[6 * b + 3 * leg + d] - contact[6 * a + 3 * leg + d];
        quatInvRotateVec3(out, 0, q, 0, v, 0);
        for (let d = 0; d < 3; d++) contactMotion[6 * f + 3 * leg + d] = out[d];
      }
    }
  }
  const restHeights = Float64Array.from(heights, (h) => (h ? quantile(h, REST_HEIGHT_QUANTILE) : Number.NaN));
  // The contact point is the toe where the rig has one (contactJoints), else the ankle.
  const planted = [cl === r.leftToe ? restHeights[0] : restHeights[2], cr === r.rightToe ? restHeights[1] : restHeights[3]];
  const contactHeight = new Float32Array(N * 2);
  for (let f = 0; f < N; f++) for (let leg = 0; leg < 2; leg++) contactHeight[2 * f + leg] = contact[6 * f + 3 * leg + 1] - planted[leg];
  return { restHeights, contactMotion, contactHeight, hipsHeight, contactEnds: contactEndsOf(db), contactVelocityChangeMax: velocityChangeMax(db, contact, 6, 2), bodyVelocityChangeMax: velocityChangeMax(db, hips, 3, 1), bodyVerticalVelocityChangeMax: velocityChangeMax(db, hips, 3, 1, true), kneeBendAccelerationMax: bendAccelerationMax(db, bend) };
}

/** Scratch for largestRateChange: three rates, two medians, their difference (up to 4 values each). */
const RATES = new Float64Array(4 * 4), MEDIAN = new Float64Array(2 * 4), CHANGE = new Float64Array(4);

/** The middle one of three numbers. */
function median3(a: number, b: number, c: number): number {
  return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

/**
 * How suddenly a captured position ever changes its rate, robust to glitches: the largest change from
 * one frame's rate to the next within a clip, the rates (first differences) taken through a median
 * of three. A capture glitch — a frame or a few whose positions jump off and back (a marker swap,
 * a dropout) — is a pair of opposite impulses in the rates, which the median removes; a change of
 * rate that lasts (a landing stopping a foot, a start) is a step, which it keeps exactly, and so is
 * every stretch where the rate rises or falls monotonically. Without it one 15 cm jump of the hips
 * on one frame of 50,566 raised the body's largest change from 0.66 to 8.99 m/s, and every limit
 * taken from it (foot IK, the root's adjustment) stopped limiting: the real set's largest velocity
 * change at 144 Hz went from 4.29 to 5.23 m/s.
 * `rate(f, out, o)` writes the rate from frame f to f + 1 (`dims` values) at out[o]; `size` is the
 * change's magnitude from the difference of two median rates (`dims` values at d, offset 0).
 */
function largestRateChange(db: Database, dims: number, rate: (f: number, out: Float64Array, o: number) => void, size: (d: Float64Array) => number): number {
  let most = 0;
  for (const clip of db.clips) {
    // Rates r(f) for f = start .. end − 2 (to the next frame); medians m(f) of r(f − 1), r(f), r(f + 1)
    // for f = start + 1 .. end − 3 (a clip's first and last rate have no neighbour on one side: as
    // they are); the change at frame f + 1 is m(f + 1) − m(f).
    const first = clip.start, last = clip.start + clip.count - 2; // last rate index
    if (last - first < 1) continue;
    const medianAt = (f: number, out: Float64Array, o: number): void => {
      if (f === first || f === last) { rate(f, out, o); return; }
      rate(f - 1, RATES, 0); rate(f, RATES, dims); rate(f + 1, RATES, 2 * dims);
      for (let d = 0; d < dims; d++) out[o + d] = median3(RATES[d], RATES[dims + d], RATES[2 * dims + d]);
    };
    medianAt(first, MEDIAN, 0);
    for (let f = first + 1; f <= last; f++) {
      medianAt(f, MEDIAN, dims);
      for (let d = 0; d < dims; d++) { CHANGE[d] = MEDIAN[dims + d] - MEDIAN[d]; MEDIAN[d] = MEDIAN[dims + d]; }
      const change = size(CHANGE);
      if (change > most) most = change;
    }
  }
  // (no frame to go by, e.g. clips of one or two frames: no limit)
  return most > 0 ? most : Number.POSITIVE_INFINITY;
}

/**
 * CapturedData.kneeBendAccelerationMax from each frame's two bend angles (`bend`, 2 per frame):
 * rad/s², the plain largest second difference. Not through the median of three: a knee's bend rate
 * peaks within a frame where the body's and the feet's velocities change in steps (the built-in's
 * procedural knees: 764 → 630 rad/s² through the median, and its largest velocity change on the
 * steps rose with the tighter limit, seeds 1-3), and a glitch of the hips or the feet carries the
 * leg along, its bend unchanged.
 */
function bendAccelerationMax(db: Database, bend: Float64Array): number {
  let most = 0;
  for (const clip of db.clips) {
    for (let f = clip.start + 1; f < clip.start + clip.count - 1; f++) {
      for (let leg = 0; leg < 2; leg++) {
        const change = Math.abs(bend[2 * (f + 1) + leg] - 2 * bend[2 * f + leg] + bend[2 * (f - 1) + leg]) * db.fps * db.fps;
        if (change > most) most = change;
      }
    }
  }
  return most > 0 ? most : Number.POSITIVE_INFINITY;
}

/**
 * The largest change of velocity from one frame to the next within a clip (m/s) of the `points`
 * points whose world positions `p` holds (`stride` values per frame, x y z each): horizontal (x, z)
 * or, with `vertical`, along y alone (through largestRateChange's median of three rates).
 * CapturedData.contactVelocityChangeMax, bodyVelocityChangeMax and bodyVerticalVelocityChangeMax.
 */
function velocityChangeMax(db: Database, p: Float64Array, stride: number, points: number, vertical = false): number {
  let most = 0;
  for (let d = 0; d < 3 * points; d += 3) {
    const m = vertical
      ? largestRateChange(db, 1, (f, out, o) => { out[o] = p[stride * (f + 1) + d + 1] - p[stride * f + d + 1]; }, (c) => Math.abs(c[0]))
      : largestRateChange(db, 2, (f, out, o) => { out[o] = p[stride * (f + 1) + d] - p[stride * f + d]; out[o + 1] = p[stride * (f + 1) + d + 2] - p[stride * f + d + 2]; }, (c) => Math.sqrt(c[0] * c[0] + c[1] * c[1]));
    if (m !== Number.POSITIVE_INFINITY && m > most) most = m;
  }
  return most > 0 ? most * db.fps : Number.POSITIVE_INFINITY;
}

/** CapturedData.contactEnds of `db`. */
export function contactEndsOf(db: Database): Uint8Array {
  const ends = new Uint8Array(db.frameCount), labels = db.contacts;
  for (const clip of db.clips) {
    const last = clip.start + clip.count - 1;
    for (let f = clip.start; f <= last; f++) {
      const next = f < last ? f + 1 : clip.loop ? clip.start : -1;
      if (next >= 0) ends[f] = labels[f] & ~labels[next];
    }
  }
  return ends;
}

/** The q-quantile of `values` (sorted in place; the lower of the two neighbours). */
export function quantile(values: Float64Array, q: number): number {
  if (values.length === 0) return Number.NaN;
  values.sort();
  return values[Math.min(values.length - 1, Math.max(0, Math.floor(q * (values.length - 1))))];
}
