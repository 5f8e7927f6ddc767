import { springCharacterPredict } from '../../math/spring.js';
import type { MotionMatchingController, ControllerInput } from '../controller/controller.js';
import { wrapAngle } from '../../math/angle.js';
import { CONTACT_LEFT, CONTACT_RIGHT, contactJoints } from '../../features/contacts.js';
import { SKATE_BINS, SKATE_BIN, GROUND_BINS, GROUND_BIN, percentile } from './histogram.js';
import { sampleGround } from '../ground/ground.js';

/** Summary figures (docs/runtime.md, "Quality metrics"). */
export interface QualityReport {
  /** Agent-seconds observed. */
  seconds: number;
  steps: number;
  /**
   * Mean horizontal speed of the contact point (the joint the contact label came from: the toe where
   * the rig has one, else the ankle) of feet in contact over a whole step (database contact labels
   * of the playing frame), cm/s; and its 95th percentile.
   */
  footSkateCmPerSec: number;
  footSkateP95CmPerSec: number;
  /** The same at the ankle (a heel rolling off a planted toe moves it: secondary figure). */
  ankleSkateCmPerSec: number;
  ankleSkateP95CmPerSec: number;
  /** Mean distance between where the input asked the root to be 0.5 s / 1 s ahead and where it went (cm). */
  trajectoryError05Cm: number;
  trajectoryError1Cm: number;
  /** Largest change of any joint's world velocity across a transition step (m/s). */
  maxTransitionJump: number;
  /** The same measure over steps without a transition, for scale (95th percentile, m/s). */
  typicalJumpP95: number;
  searchesPerSec: number;
  transitionsPerSec: number;
  /**
   * Foot-ground error of feet in contact (over steps where they are in contact at both ends, like
   * the skate): d = the contact point's height above the ground under it, along the ground's normal
   * (where the ground is steeper than a foot tilts, e.g. a step's riser, as on a slope of
   * maxFootTilt), minus its animated height above the animation's ground. d > 0 floats, d < 0 is in
   * the ground.
   * |d| mean and 95th percentile (cm); float max(d, 0) and penetration max(−d, 0), mean and 95th
   * percentile (cm). On flat ground (no `ground` option) the ground is y = 0, so a run on terrain
   * compares with the same run without it.
   */
  footGroundErrorCm: number;
  footGroundErrorP95Cm: number;
  footFloatCm: number;
  footFloatP95Cm: number;
  footPenetrationCm: number;
  footPenetrationP95Cm: number;
  /**
   * Swinging feet (not in contact): how far the contact point is lower over the ground under it than
   * it stood at its last contact (it is then in the ground), 99th percentile and largest (cm). 0:
   * the feet clear the ground.
   */
  swingPenetrationP99Cm: number;
  swingPenetrationMaxCm: number;
}

const JUMP_BINS = 500; // 0.02 m/s bins up to 10 m/s
const JUMP_BIN = 0.02;
const HORIZONS = new Float64Array([0.5, 1]);
// Temporaries of one observe() call, shared by every meter of a thread.
const PRED_OUT = new Float64Array(6);
const DESIRED = new Float64Array(3);
const GROUND = new Float64Array(4);
/** Input changes smaller than these (m/s, rad) keep a prediction valid. */
const INPUT_SPEED_TOLERANCE = 0.1;
const INPUT_ANGLE_TOLERANCE = 0.1;

/**
 * Accumulated quality figures, shareable by many meters (a crowd reports one set of numbers) and
 * mergeable across threads (plain arrays and numbers: structured-cloneable).
 */
export class QualityStats {
  seconds = 0;
  steps = 0;
  skateSum = 0;
  skateCount = 0;
  skateHist = new Float64Array(SKATE_BINS + 1);
  ankleSkateSum = 0;
  ankleSkateHist = new Float64Array(SKATE_BINS + 1);
  maxJump = 0;
  jumpHist = new Float64Array(JUMP_BINS + 1);
  errSum = new Float64Array(2);
  errCount = new Float64Array(2);
  searches = 0;
  transitions = 0;
  groundCount = 0;
  groundErrorSum = 0;
  groundFloatSum = 0;
  groundPenetrationSum = 0;
  groundErrorHist = new Float64Array(GROUND_BINS + 1);
  groundFloatHist = new Float64Array(GROUND_BINS + 1);
  groundPenetrationHist = new Float64Array(GROUND_BINS + 1);
  swingPenetrationHist = new Float64Array(GROUND_BINS + 1);
  swingPenetrationMax = 0;

  merge(o: QualityStats): void {
    this.seconds += o.seconds; this.steps += o.steps;
    this.skateSum += o.skateSum; this.skateCount += o.skateCount;
    for (let i = 0; i < this.skateHist.length; i++) this.skateHist[i] += o.skateHist[i];
    this.ankleSkateSum += o.ankleSkateSum;
    for (let i = 0; i < this.ankleSkateHist.length; i++) this.ankleSkateHist[i] += o.ankleSkateHist[i];
    this.maxJump = Math.max(this.maxJump, o.maxJump);
    for (let i = 0; i < this.jumpHist.length; i++) this.jumpHist[i] += o.jumpHist[i];
    for (let h = 0; h < 2; h++) { this.errSum[h] += o.errSum[h]; this.errCount[h] += o.errCount[h]; }
    this.searches += o.searches; this.transitions += o.transitions;
    this.groundCount += o.groundCount;
    this.groundErrorSum += o.groundErrorSum; this.groundFloatSum += o.groundFloatSum; this.groundPenetrationSum += o.groundPenetrationSum;
    for (let i = 0; i <= GROUND_BINS; i++) {
      this.groundErrorHist[i] += o.groundErrorHist[i];
      this.groundFloatHist[i] += o.groundFloatHist[i];
      this.groundPenetrationHist[i] += o.groundPenetrationHist[i];
      this.swingPenetrationHist[i] += o.swingPenetrationHist[i];
    }
    this.swingPenetrationMax = Math.max(this.swingPenetrationMax, o.swingPenetrationMax);
  }

  /** Rebuilds stats received from another thread (a structured clone loses the prototype). */
  static from(o: QualityStats): QualityStats {
    const s = new QualityStats();
    s.merge(o);
    return s;
  }

  report(): QualityReport {
    const seconds = Math.max(this.seconds, 1e-9);
    return {
      seconds: this.seconds,
      steps: this.steps,
      footSkateCmPerSec: this.skateCount ? this.skateSum / this.skateCount : 0,
      footSkateP95CmPerSec: percentile(this.skateHist, 0.95) * SKATE_BIN,
      ankleSkateCmPerSec: this.skateCount ? this.ankleSkateSum / this.skateCount : 0,
      ankleSkateP95CmPerSec: percentile(this.ankleSkateHist, 0.95) * SKATE_BIN,
      trajectoryError05Cm: this.errCount[0] ? this.errSum[0] / this.errCount[0] : 0,
      trajectoryError1Cm: this.errCount[1] ? this.errSum[1] / this.errCount[1] : 0,
      maxTransitionJump: this.maxJump,
      typicalJumpP95: percentile(this.jumpHist, 0.95) * JUMP_BIN,
      searchesPerSec: this.searches / seconds,
      transitionsPerSec: this.transitions / seconds,
      footGroundErrorCm: this.groundCount ? this.groundErrorSum / this.groundCount : 0,
      footGroundErrorP95Cm: percentile(this.groundErrorHist, 0.95) * GROUND_BIN,
      footFloatCm: this.groundCount ? this.groundFloatSum / this.groundCount : 0,
      footFloatP95Cm: percentile(this.groundFloatHist, 0.95) * GROUND_BIN,
      footPenetrationCm: this.groundCount ? this.groundPenetrationSum / this.groundCount : 0,
      footPenetrationP95Cm: percentile(this.groundPenetrationHist, 0.95) * GROUND_BIN,
      swingPenetrationP99Cm: percentile(this.swingPenetrationHist, 0.99) * GROUND_BIN,
      swingPenetrationMaxCm: this.swingPenetrationMax,
    };
  }
}

// The meter's numbers, first in its storage block.
const M_TIME = 0, M_PREV_DT = 1, M_STEP_DT = 2, M_LAST_VX = 3, M_LAST_VZ = 4, M_LAST_FACING = 5, M_LAST_SEARCHES = 6, M_LAST_TRANSITIONS = 7;
/** Each foot's contact point height over the ground at its last contact (cm; NaN before the first). */
const M_PLANTED = 8;
const SCALARS = 10;

/**
 * Measures one controller as it runs: call observe() after every step. Per-step work allocates
 * nothing; the per-character state is small (a few J*3 buffers and two prediction rings) so that
 * thousands of characters can be measured, all feeding one QualityStats.
 */
export class QualityMeter {
  /** Where observations go (a crowd with levels of detail points it at the level's statistics). */
  stats: QualityStats;
  private readonly J: number;
  /** Contact point (toe, else ankle) and ankle of each foot. */
  private readonly contactL: number;
  private readonly contactR: number;
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
    [this.contactL, this.contactR] = contactJoints(controller.db.roles);
    this.ring = ringLength(minDt, predictEvery);
    const n = this.J * 3, R = 2 * this.ring, size = SCALARS + 2 * n + 4 * R;
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= size)) {
      throw new RangeError(`QualityMeter: storage must be a Float64Array of at least ${size} values`);
    }
    this.M = storage ? storage.subarray(0, size).fill(0) : new Float64Array(size);
    this.predTime = SCALARS + 2 * n;
    this.predX = this.predTime + R;
    this.predZ = this.predX + R;
    this.predVersion = this.predZ + R;
    this.M[M_LAST_VX] = NaN; this.M[M_LAST_VZ] = NaN; this.M[M_LAST_FACING] = NaN;
    this.M[M_PLANTED] = NaN; this.M[M_PLANTED + 1] = NaN;
    this.M[M_LAST_SEARCHES] = controller.searchCount;
    this.M[M_LAST_TRANSITIONS] = controller.transitionCount;
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
    // The pose's motion is measured over the intervals it moved by: every step (poseSeconds = dt),
    // or with a level of detail that updates the pose every few steps, from one update to the next
    // (measured step by step, a frozen pose read as standing still and then as a jump of several
    // steps' motion; and measuring it cost 15% of a far agent's step).
    const pdt = c.poseSeconds;
    if (pdt > 0) {
      M[M_STEP_DT] = pdt;
      this.observeMotion(wp);
      M[M_STEP_DT] = dt;
    }
    // (a step of dt 0 moves nothing but, as always, takes the contacts as they are now)
    if (pdt > 0 || !(dt > 0)) this.prevContacts = c.contacts;
    this.trackTrajectory(input);
  }

  report(): QualityReport {
    return this.stats.report();
  }

  /** Velocity jump and foot skate over a step of dt > 0, then the step enters the history. */
  private observeMotion(wp: Float64Array): void {
    const dt = this.M[M_STEP_DT];
    const c = this.controller, s = this.stats;
    const n = 3 * this.J, H = this.M, p1 = this.prevSlot, p2 = 2 * SCALARS + n - p1;
    if (this.hasPrev >= 2) {
      // Change of world velocity, per joint: (x_t - x_{t-1}) / dt - (x_{t-1} - x_{t-2}) / dt_prev.
      const a = 1 / dt, b = 1 / this.M[M_PREV_DT];
      let jump = 0;
      for (let i = 0; i < n; i += 3) {
        const x1 = H[p1 + i], y1 = H[p1 + i + 1], z1 = H[p1 + i + 2];
        const ax = (wp[i] - x1) * a - (x1 - H[p2 + i]) * b;
        const ay = (wp[i + 1] - y1) * a - (y1 - H[p2 + i + 1]) * b;
        const az = (wp[i + 2] - z1) * a - (z1 - H[p2 + i + 2]) * b;
        const d = ax * ax + ay * ay + az * az;
        if (d > jump) jump = d;
      }
      jump = Math.sqrt(jump);
      if (c.transitioned) { if (jump > s.maxJump) s.maxJump = jump; }
      else s.jumpHist[Math.min(JUMP_BINS, Math.floor(jump / JUMP_BIN))]++;
    }
    if (this.hasPrev >= 1) {
      // A foot counts when it is in contact at both ends of the step: the landing step's speed
      // belongs to the swing that ends in it.
      const contacts = c.contacts & this.prevContacts;
      if (contacts & CONTACT_LEFT) { this.recordSkate(wp, this.contactL, false); this.recordSkate(wp, c.db.roles.leftFoot, true); }
      if (contacts & CONTACT_RIGHT) { this.recordSkate(wp, this.contactR, false); this.recordSkate(wp, c.db.roles.rightFoot, true); }
      // The same feet against the ground; feet out of contact now against the ground they swing over.
      this.recordGround(wp, 0, this.contactL, (contacts & CONTACT_LEFT) !== 0, (c.contacts & CONTACT_LEFT) === 0);
      this.recordGround(wp, 1, this.contactR, (contacts & CONTACT_RIGHT) !== 0, (c.contacts & CONTACT_RIGHT) === 0);
    }
    // This step becomes the previous one, over the older slot.
    for (let i = 0; i < n; i++) H[p2 + i] = wp[i];
    this.prevSlot = p2;
    this.M[M_PREV_DT] = dt;
    this.hasPrev = Math.min(2, this.hasPrev + 1);
  }

  /** Horizontal speed (cm/s) of `joint` over the step just taken, into the contact-point figure or the ankle's. */
  private recordSkate(wp: Float64Array, joint: number, atAnkle: boolean): void {
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
