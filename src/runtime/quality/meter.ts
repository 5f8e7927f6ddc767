/**
 * The quality meter: measures one controller as it runs (call observe() after every step), into a
 * QualityStats that many meters may share. The output measures (output-measures.ts) read the world
 * joint positions the controller outputs and nothing it decides; the meter adds the controller's
 * bookkeeping (transitions, searches, trajectory error) and the contact-label diagnostics.
 * Per-step work allocates nothing; the per-character state is small (two J*3 position slots, a few
 * numbers, two prediction rings) so that thousands of characters can be measured.
 */
import { springCharacterPredict } from '../../math/spring.js';
import type { MotionMatchingController, ControllerInput } from '../controller/controller.js';
import { wrapAngle } from '../../math/angle.js';
import { CONTACT_LEFT, CONTACT_RIGHT, contactJoints } from '../../features/contacts.js';
import { SKATE_BINS, SKATE_BIN, GROUND_BINS, GROUND_BIN, POP_BINS, POP_BIN } from './histogram.js';
import { sampleGround } from '../ground/ground.js';
import { QualityStats, type QualityReport } from './metrics.js';
import { qualityRig, bodyFacing, type QualityRig } from './quality-rig.js';
import { capturedData } from '../captured-data.js';
import { LOWEST_FOOT, POP_JUMP, STANDING_SPEED, recordFacing, recordFeet, recordHips, recordPlantedLift, recordPops, recordStanding, recordStop } from './output-measures.js';

export { QualityStats, type QualityReport } from './metrics.js';

const HORIZONS = new Float64Array([0.5, 1]);
/** Seconds after a stop request at which the speeds are taken. */
const STOP_HORIZONS = [0.5, 1] as const;
/** A requested speed (m/s) this low is a stop request when the one before was above STOP_FROM. */
const STOP_SPEED = 1e-3;
const STOP_FROM = 0.1;
/** The facing error counts from this long after the requested facing last changed (s): the facing spring has turned by then. */
const FACING_SETTLE = 1;
/** A requested facing that moves by less than this (radians) is the same request. */
const FACING_TOLERANCE = 0.02;
// Temporaries of one observe() call, shared by every meter of a thread.
const PRED_OUT = new Float64Array(6);
const DESIRED = new Float64Array(3);
const GROUND = new Float64Array(4);
/** The ground's height under each foot joint (at most 4), and on flat ground zeros. */
const FOOT_GROUND = new Float64Array(4);
/** Input changes smaller than these (m/s, rad) keep a prediction valid. */
const INPUT_SPEED_TOLERANCE = 0.1;
const INPUT_ANGLE_TOLERANCE = 0.1;

// The meter's numbers, first in its storage block.
const M_TIME = 0, M_PREV_DT = 1, M_STEP_DT = 2, M_LAST_VX = 3, M_LAST_VZ = 4, M_LAST_FACING = 5, M_LAST_SEARCHES = 6, M_LAST_TRANSITIONS = 7;
/** Each foot's contact point height over the ground at its last contact (cm; NaN before the first). */
const M_PLANTED = 8;
/** The root's position (x, z) at the previous step, and its speed (m/s) over the last step. */
const M_ROOT_X = 10, M_ROOT_Z = 11, M_ROOT_SPEED = 12;
/** The lowest foot joint's speed (m/s) over the last pose update. */
const M_LOW_FOOT_SPEED = 13;
/** The time of the pending stop request (NaN: none), how many of its horizons are taken, the previous requested speed. */
const M_STOP_AT = 14, M_STOP_DONE = 15, M_REQ_SPEED = 16;
/** The requested facing in force (NaN: none) and the time it was made. */
const M_FACING_REQ = 17, M_FACING_SINCE = 18;
/** Each foot joint's height over its own low height at the last pose update (up to 4). */
const M_FOOT_H = 19;
/** Seconds the root has moved slower than STANDING_SPEED. */
const M_STILL = 23;
/** Two numbers handed to the output measures (output-measures.ts: numbers passed to a call are heap boxes). */
const M_ARGS = 24;
const SCALARS = 26;

export class QualityMeter {
  /** Where observations go (a crowd with levels of detail points it at the level's statistics). */
  stats: QualityStats;
  private readonly J: number;
  private readonly rig: QualityRig;
  /** capturedData(db).hipsHeight: the hips' height in every captured frame. */
  private readonly hipsHeight: Float32Array;
  /** Contact point (toe, else ankle) and ankle of each foot (the label diagnostics). */
  private readonly contactL: number;
  private readonly contactR: number;
  /** capturedData(db).contactHeight: each leg's captured contact point over its planted height, per frame. */
  private readonly contactHeight: Float32Array;
  /** Where each leg's contact point is in the rig's foot joints (its height over the planted one is M[M_FOOT_H + k]). */
  private readonly contactFootL: number;
  private readonly contactFootR: number;
  /** Offset in `M` of the previous step's world joint positions (J*3; the other slot of the two holds the step before). */
  private prevSlot = SCALARS;
  private hasPrev = 0;
  private prevContacts = 0;
  // One ring per horizon so that evaluation order matches insertion order.
  private readonly ring: number;
  /** Offsets in `M` of the prediction rings (per horizon h, entries [h * ring, (h + 1) * ring)). */
  private readonly predTime: number;
  private readonly predX: number;
  private readonly predZ: number;
  private readonly predVersion: number;
  // Ring cursors per horizon (plain fields: two small arrays would be two more objects to fetch).
  private head0 = 0;
  private head1 = 0;
  private tail0 = 0;
  private tail1 = 0;
  private inputVersion = 0;
  /**
   * The whole state, through one view: the numbers (time, last input, ...) at the M_* offsets, then
   * the position history (two slots of J*3) and the prediction rings. Numbers are here rather than
   * object fields (a double field is a separate heap box), and one view rather than several (each
   * view is an object to fetch per step in a crowd).
   */
  private readonly M: Float64Array;

  private predictCountdown = 0;

  /** Values a meter keeps for `joints` joints, steps of at least `minDt` and a prediction every `predictEvery` steps (see the constructor's `storage`). */
  static storageSize(joints: number, minDt = 1 / 240, predictEvery = 1): number {
    return SCALARS + 6 * joints + 8 * ringLength(minDt, predictEvery);
  }

  /** The leading part of the storage that every step reads (scalars and position history). */
  static perStepSize(joints: number): number {
    return SCALARS + 6 * joints;
  }

  /**
   * `minDt`: the smallest step expected (sizes the prediction rings). `predictEvery`: make a
   * trajectory prediction every this many steps (crowds sample at the search cadence). `storage`
   * (optional, at least storageSize(...) values, overwritten): where the meter's numbers, history and
   * rings live, e.g. next to the controller's own block in a crowd's buffer.
   */
  constructor(private readonly controller: MotionMatchingController, stats: QualityStats = new QualityStats(), minDt = 1 / 240, private readonly predictEvery = 1, storage?: Float64Array) {
    this.stats = stats;
    this.J = controller.joints;
    this.rig = qualityRig(controller.db);
    this.hipsHeight = capturedData(controller.db).hipsHeight;
    [this.contactL, this.contactR] = contactJoints(controller.db.roles);
    this.contactHeight = capturedData(controller.db).contactHeight;
    this.contactFootL = this.rig.feet.indexOf(this.contactL);
    this.contactFootR = this.rig.feet.indexOf(this.contactR);
    this.ring = ringLength(minDt, predictEvery);
    const n = this.J * 3, R = 2 * this.ring, size = SCALARS + 2 * n + 4 * R;
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= size)) {
      throw new RangeError(`QualityMeter: storage must be a Float64Array of at least ${size} values`);
    }
    const M = (this.M = storage ? storage.subarray(0, size).fill(0) : new Float64Array(size));
    this.predTime = SCALARS + 2 * n;
    this.predX = this.predTime + R;
    this.predZ = this.predX + R;
    this.predVersion = this.predZ + R;
    M[M_LAST_VX] = NaN; M[M_LAST_VZ] = NaN; M[M_LAST_FACING] = NaN;
    M[M_PLANTED] = NaN; M[M_PLANTED + 1] = NaN;
    M[M_ROOT_X] = controller.rootPosition[0]; M[M_ROOT_Z] = controller.rootPosition[2];
    M[M_STOP_AT] = NaN; M[M_FACING_REQ] = NaN;
    M[M_LAST_SEARCHES] = controller.searchCount;
    M[M_LAST_TRANSITIONS] = controller.transitionCount;
  }

  /** Records the step the controller just took with `input`, over `dt` seconds. */
  observe(input: ControllerInput, dt: number): void {
    // An inlined wrapper: dt reaches observeStep through the block (a number argument of a call that
    // is not inlined is heap-allocated; a crowd observes every agent every step).
    this.M[M_STEP_DT] = dt;
    this.observeStep(input);
  }

  private observeStep(input: ControllerInput): void {
    const c = this.controller, wp = c.worldPositions, s = this.stats, M = this.M, dt = M[M_STEP_DT];
    M[M_TIME] += dt;
    s.seconds += dt;
    s.steps++;
    s.searches += c.searchCount - M[M_LAST_SEARCHES];
    s.transitions += c.transitionCount - M[M_LAST_TRANSITIONS];
    M[M_LAST_SEARCHES] = c.searchCount;
    M[M_LAST_TRANSITIONS] = c.transitionCount;
    const root = c.rootPosition, rx = root[0] - M[M_ROOT_X], rz = root[2] - M[M_ROOT_Z];
    if (dt > 0) {
      M[M_ROOT_SPEED] = Math.sqrt(rx * rx + rz * rz) / dt;
      M[M_STILL] = M[M_ROOT_SPEED] < STANDING_SPEED ? M[M_STILL] + dt : 0;
    }
    M[M_ROOT_X] = root[0]; M[M_ROOT_Z] = root[2];
    // The pose's motion is measured over the intervals it moved by: every step (poseSeconds = dt),
    // or with a level of detail that updates the pose every few steps, from one update to the next
    // (measured step by step, a frozen pose read as standing still and then as a jump of several
    // steps' motion; and measuring it cost 15% of a far agent's step).
    const pdt = c.poseSeconds;
    if (pdt > 0) {
      M[M_STEP_DT] = pdt;
      this.observeMotion(wp);
      M[M_STEP_DT] = dt;
      if (!Number.isNaN(input.facing) || !Number.isNaN(M[M_FACING_REQ])) this.observeFacing(input, wp);
    }
    // (a step of dt 0 moves nothing but, as always, takes the contacts as they are now)
    if (pdt > 0 || !(dt > 0)) this.prevContacts = c.contacts;
    this.observeStop(input);
    this.trackTrajectory(input);
  }

  report(): QualityReport {
    return this.stats.report();
  }

  /** Output measures and the label diagnostics over a pose update of dt > 0; then the step enters the history. */
  private observeMotion(wp: Float64Array): void {
    const M = this.M, dt = M[M_STEP_DT];
    const c = this.controller, s = this.stats, rig = this.rig;
    const n = 3 * this.J, p1 = this.prevSlot, p2 = 2 * SCALARS + n - p1;
    // Two steps of history: the pops, with this step written over the older slot on the way
    // (nothing below reads that slot: the previous step is p1).
    const kept = this.hasPrev >= 2;
    if (kept) {
      recordPops(s, wp, M, p1, p2, n, M, M_STEP_DT, M_PREV_DT, true);
      const jump = POP_JUMP[0];
      if (c.transitioned) { if (jump > s.maxJump) s.maxJump = jump; }
      else s.jumpHist[Math.min(POP_BINS, Math.floor(jump / POP_BIN))]++;
    }
    const ground = c.options.ground;
    let hipsGround = 0;
    if (ground !== null) {
      for (let k = 0; k < rig.feet.length; k++) { sampleGround(ground, wp, 3 * rig.feet[k], GROUND); FOOT_GROUND[k] = GROUND[0]; }
      sampleGround(ground, wp, 3 * rig.hips, GROUND);
      hipsGround = GROUND[0];
    } else FOOT_GROUND.fill(0);
    recordFeet(s, rig, wp, M, this.hasPrev >= 1 ? p1 : -1, FOOT_GROUND, M, M_FOOT_H, M, M_STEP_DT);
    M[M_LOW_FOOT_SPEED] = LOWEST_FOOT[1];
    M[M_ARGS] = wp[3 * rig.hips + 1] - hipsGround;
    this.captured(this.hipsHeight, 1, 0, M_ARGS + 1);
    recordHips(s, M, M_ARGS);
    if (this.contactFootL >= 0) { this.captured(this.contactHeight, 2, 0, M_ARGS); M[M_ARGS + 1] = M[M_FOOT_H + this.contactFootL]; recordPlantedLift(s, M, M_ARGS); }
    if (this.contactFootR >= 0) { this.captured(this.contactHeight, 2, 1, M_ARGS); M[M_ARGS + 1] = M[M_FOOT_H + this.contactFootR]; recordPlantedLift(s, M, M_ARGS); }
    if (this.hasPrev >= 1) { M[M_ARGS] = M[M_STILL]; M[M_ARGS + 1] = LOWEST_FOOT[0]; recordStanding(s, M, M_ARGS); }
    if (this.hasPrev >= 1) {
      // A foot counts when it is in contact at both ends of the step: the landing step's speed
      // belongs to the swing that ends in it.
      const contacts = c.contacts & this.prevContacts;
      if (contacts & CONTACT_LEFT) { this.recordLabelSkate(wp, this.contactL, false); this.recordLabelSkate(wp, c.db.roles.leftFoot, true); }
      if (contacts & CONTACT_RIGHT) { this.recordLabelSkate(wp, this.contactR, false); this.recordLabelSkate(wp, c.db.roles.rightFoot, true); }
      // The same feet against the ground; feet out of contact now against the ground they swing over.
      this.recordGround(wp, 0, this.contactL, (contacts & CONTACT_LEFT) !== 0, (c.contacts & CONTACT_LEFT) === 0);
      this.recordGround(wp, 1, this.contactR, (contacts & CONTACT_RIGHT) !== 0, (c.contacts & CONTACT_RIGHT) === 0);
    }
    // This step becomes the previous one, over the older slot (already written with the pops).
    if (!kept) for (let i = 0; i < n; i++) M[p2 + i] = wp[i];
    this.prevSlot = p2;
    M[M_PREV_DT] = dt;
    this.hasPrev = Math.min(2, this.hasPrev + 1);
  }

  /** A captured per-frame figure (`values[stride * f + k]`) at the frame the controller plays, between it and the next by its fraction, into M[at]. */
  private captured(values: Float32Array, stride: number, k: number, at: number): void {
    const c = this.controller, f = c.frame, clip = c.db.clips[c.clipIndex];
    const next = f + 1 < clip.start + clip.count ? f + 1 : f;
    const a = values[stride * f + k];
    this.M[at] = a + (values[stride * next + k] - a) * c.frameFraction;
  }

  /** The body's facing against the requested one, once the request has held FACING_SETTLE seconds. */
  private observeFacing(input: ControllerInput, wp: Float64Array): void {
    const M = this.M, want = input.facing;
    if (Number.isNaN(want)) { M[M_FACING_REQ] = NaN; return; }
    if (Number.isNaN(M[M_FACING_REQ]) || Math.abs(wrapAngle(want - M[M_FACING_REQ])) > FACING_TOLERANCE) {
      M[M_FACING_REQ] = want;
      M[M_FACING_SINCE] = M[M_TIME];
      return;
    }
    if (M[M_TIME] - M[M_FACING_SINCE] < FACING_SETTLE - 1e-9) return;
    const yaw = bodyFacing(this.rig, wp);
    if (!Number.isNaN(yaw)) recordFacing(this.stats, wrapAngle(yaw - want));
  }

  /** A stop request (the requested speed drops to 0) and the speeds STOP_HORIZONS after it, while it holds. */
  private observeStop(input: ControllerInput): void {
    const M = this.M, req = Math.sqrt(input.velocityX * input.velocityX + input.velocityZ * input.velocityZ);
    if (req > STOP_SPEED) M[M_STOP_AT] = NaN;
    else if (M[M_REQ_SPEED] > STOP_FROM) { M[M_STOP_AT] = M[M_TIME] - M[M_STEP_DT]; M[M_STOP_DONE] = 0; }
    M[M_REQ_SPEED] = req;
    if (Number.isNaN(M[M_STOP_AT])) return;
    const since = M[M_TIME] - M[M_STOP_AT], h = M[M_STOP_DONE];
    if (since < STOP_HORIZONS[h] - 1e-9) return;
    recordStop(this.stats, h, M[M_ROOT_SPEED], M[M_LOW_FOOT_SPEED]);
    M[M_STOP_DONE] = h + 1;
    if (h + 1 === STOP_HORIZONS.length) { this.stats.stopCount++; M[M_STOP_AT] = NaN; }
  }

  /** Horizontal speed (cm/s) of `joint` over the step just taken, into the label figure at the contact point or the ankle's. */
  private recordLabelSkate(wp: Float64Array, joint: number, atAnkle: boolean): void {
    const dt = this.M[M_STEP_DT];
    const i = this.prevSlot + 3 * joint, H = this.M;
    const vx = wp[3 * joint] - H[i], vz = wp[3 * joint + 2] - H[i + 2];
    const speed = (Math.sqrt(vx * vx + vz * vz) / dt) * 100, bin = Math.min(SKATE_BINS, Math.floor(speed / SKATE_BIN));
    const s = this.stats;
    if (atAnkle) { s.ankleSkateSum += speed; s.ankleSkateHist[bin]++; }
    else { s.skateSum += speed; s.skateCount++; s.skateHist[bin]++; }
  }

  /**
   * Leg `leg`'s contact point against the ground (see QualityReport.footGroundErrorCm): into the
   * contact figures when `planted` (and remembered as where it stands), into the swing figure when
   * `swinging`.
   */
  private recordGround(wp: Float64Array, leg: number, joint: number, planted: boolean, swinging: boolean): void {
    if (!planted && !swinging) return;
    const c = this.controller, s = this.stats, j = 3 * joint, ground = c.options.ground;
    let g = 0, ny = 1;
    if (ground !== null) {
      sampleGround(ground, wp, j, GROUND);
      // Along the normal where a foot can tilt with the ground, else (a riser) as on the steepest slope it tilts to.
      g = GROUND[0]; ny = Math.max(GROUND[2], Math.cos(c.options.groundOptions.maxFootTilt));
    }
    const over = (wp[j + 1] - g) * ny * 100;
    if (swinging) {
      const pen = this.M[M_PLANTED + leg] - over;
      if (pen > 0) {
        s.swingPenetrationHist[Math.min(GROUND_BINS, Math.floor(pen / GROUND_BIN))]++;
        if (pen > s.swingPenetrationMax) s.swingPenetrationMax = pen;
      } else s.swingPenetrationHist[0]++; // (NaN before the first contact counts as clear)
      return;
    }
    this.M[M_PLANTED + leg] = over;
    // The animated height: what foot IK saw before moving the foot, or the pose itself without IK.
    const animated = c.options.footIK ? c.footIK.animatedContactHeight(leg) : wp[j + 1] - c.rootPosition[1];
    const d = over - animated * 100, e = Math.abs(d), fl = d > 0 ? d : 0, pen = d < 0 ? -d : 0;
    s.groundCount++;
    s.groundErrorSum += e; s.groundFloatSum += fl; s.groundPenetrationSum += pen;
    s.groundErrorHist[Math.min(GROUND_BINS, Math.floor(e / GROUND_BIN))]++;
    s.groundFloatHist[Math.min(GROUND_BINS, Math.floor(fl / GROUND_BIN))]++;
    s.groundPenetrationHist[Math.min(GROUND_BINS, Math.floor(pen / GROUND_BIN))]++;
  }

  private trackTrajectory(input: ControllerInput): void {
    const c = this.controller;
    // A prediction is judged only if the input it was made under still holds (within a tolerance,
    // so that an agent steering gently at a waypoint keeps its predictions).
    const M = this.M;
    const facingChanged = Number.isNaN(input.facing) !== Number.isNaN(M[M_LAST_FACING]) ||
      (!Number.isNaN(input.facing) && Math.abs(wrapAngle(input.facing - M[M_LAST_FACING])) > INPUT_ANGLE_TOLERANCE);
    const dvx = input.velocityX - M[M_LAST_VX], dvz = input.velocityZ - M[M_LAST_VZ];
    if (dvx * dvx + dvz * dvz > INPUT_SPEED_TOLERANCE * INPUT_SPEED_TOLERANCE || facingChanged || Number.isNaN(M[M_LAST_VX])) {
      this.inputVersion++;
      M[M_LAST_VX] = input.velocityX; M[M_LAST_VZ] = input.velocityZ; M[M_LAST_FACING] = input.facing;
    }
    const predict = --this.predictCountdown <= 0;
    if (predict) {
      this.predictCountdown = this.predictEvery;
      DESIRED[0] = input.velocityX; DESIRED[1] = 0; DESIRED[2] = input.velocityZ;
      springCharacterPredict(PRED_OUT, null, null, c.simPosition, 0, c.simVelocity, 0, c.simAcceleration, 0, DESIRED, 0, c.options.trajectoryHalfLife, HORIZONS, 2, 3);
    }
    this.tail0 = this.evaluateDue(0, this.head0, this.tail0);
    this.tail1 = this.evaluateDue(1, this.head1, this.tail1);
    if (!predict) return;
    this.head0 = this.record(0, this.head0, this.tail0);
    this.head1 = this.record(1, this.head1, this.tail1);
  }

  /** Scores horizon h's predictions whose time has come (made under the input still in force); returns the new tail. */
  private evaluateDue(h: number, head: number, tail: number): number {
    const R = this.ring, c = this.controller, s = this.stats;
    const M = this.M;
    while (tail !== head && M[this.predTime + h * R + tail] <= M[M_TIME] + 1e-9) {
      const k = h * R + tail;
      if (M[this.predVersion + k] === this.inputVersion) {
        const ex = c.rootPosition[0] - M[this.predX + k], ez = c.rootPosition[2] - M[this.predZ + k];
        s.errSum[h] += Math.sqrt(ex * ex + ez * ez) * 100;
        s.errCount[h]++;
      }
      tail = (tail + 1) % R;
    }
    return tail;
  }

  /** Stores this step's prediction for horizon h; returns the new head (unchanged when the ring is full). */
  private record(h: number, head: number, tail: number): number {
    const R = this.ring, next = (head + 1) % R;
    if (next === tail) return head; // full: only with steps smaller than minDt
    const k = h * R + head;
    const M = this.M;
    M[this.predTime + k] = M[M_TIME] + HORIZONS[h];
    M[this.predX + k] = PRED_OUT[3 * h];
    M[this.predZ + k] = PRED_OUT[3 * h + 2];
    M[this.predVersion + k] = this.inputVersion;
    return next;
  }
}

/** Prediction ring length per horizon: predictions made every `predictEvery` steps of at least minDt, alive for the longest horizon. */
function ringLength(minDt: number, predictEvery: number): number {
  return Math.ceil(HORIZONS[1] / minDt / predictEvery) + 4;
}
