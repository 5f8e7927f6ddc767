/**
 * Quality statistics (docs/quality.md): what the quality meters add up, mergeable across meters,
 * threads and shards (plain numbers and typed arrays: structured-cloneable, and written field by
 * field into partial reports), and the report read from them.
 *
 * Two kinds of figures live here:
 * - output measures, computed from the world joint positions the engine outputs (after IK), on
 *   every step, at the display rate: foot skate, depth below the ground, pops, hips height, feet
 *   while standing, stops, facing (output-measures.ts; the same code measures the data itself,
 *   playback-quality.ts);
 * - the controller's own bookkeeping: transitions, searches, trajectory error, and the older
 *   contact-label figures (skate of feet the playing frame labels in contact, their distance to
 *   the ground), kept as diagnostics: they cannot see a foot the labels miss.
 */
import {
  SKATE_BINS, SKATE_BIN, GROUND_BINS, GROUND_BIN, DEPTH_BINS, DEPTH_BIN, HEIGHT_BINS, HEIGHT_BIN, POP_BINS, POP_BIN,
  STOP_BINS, STOP_BIN, FACING_BINS, FACING_BIN, OFFSET_BINS, OFFSET_BIN, OFFSET_RANGE, percentile, quantileOf, quantileWithZeros,
} from './histogram.js';

/** Summary figures (docs/quality.md). Output measures first; NaN where a run had nothing to measure. */
export interface QualityReport {
  /** Agent-seconds observed. */
  seconds: number;
  steps: number;

  // --- Output measures: world joint positions after IK, every step ---------------------------
  /**
   * Foot skate (Zhang et al. 2018): per foot joint (toes and ankles) and step, s = horizontal speed
   * × clamp(2 − 2^(h/H), 0, 1), H = 2.5 cm, h = the joint's height above the ground minus its own
   * low height in the data. Mean and 95th percentile of s over steps with h < H (cm/s), and the
   * mean over all foot-joint steps.
   */
  skateCmPerSec: number;
  skateP95CmPerSec: number;
  skateAllCmPerSec: number;
  /** Foot joints below the ground (any step, stance or swing): share of foot-joint steps, and the depth's 99th percentile and largest (cm). */
  belowGroundShare: number;
  belowGroundP99Cm: number;
  belowGroundMaxCm: number;
  /** Median height of the hips joint over the ground (cm): what the scenario's mix of motion gives. */
  hipsHeightCm: number;
  /** Median of the hips' height over the ground minus the captured pose's at the frame played (cm): what the runtime does to the body's height. */
  hipsOffsetCm: number;
  /** Its 5th percentile (cm): how low the body sinks against the capture when it does. */
  hipsOffsetP5Cm: number;
  /**
   * Feet the capture has on the ground, shown lifted: per leg and step where the captured contact
   * point (toe, else ankle) at the frame played is within the skate band of its planted height, how
   * much higher the output's is than the capture's (cm; 0 when not higher): mean, 95th and 99th
   * percentile, over `plantedSteps` such steps. A planted foot dragged up by a leg that cannot reach
   * it, or a free one carried off by an offset, shows here; skate (which leaves out feet in the air)
   * and depth (feet below the ground) do not see it.
   */
  plantedSteps: number;
  plantedLiftCm: number;
  plantedLiftP95Cm: number;
  plantedLiftP99Cm: number;
  /** Steps where the character stands (its root moving under 2 cm/s for 0.5 s or more): their share, and how high the lowest foot joint is above its own low height then, mean and 95th percentile (cm). */
  standingShare: number;
  standingHoverCm: number;
  standingHoverP95Cm: number;
  /** Pops: the largest change of a joint's world velocity between consecutive steps, per step: its 99.9th percentile, the largest (m/s), and the joint (index) that had it. */
  popP999: number;
  popMax: number;
  popJoint: number;
  /**
   * After a stop request (the requested speed drops to 0 and stays there): the root's horizontal
   * speed and the lowest foot joint's speed 0.5 s and 1 s later, mean and 95th percentile (cm/s),
   * over `stops` requests.
   */
  stops: number;
  stopRoot05CmPerSec: number;
  stopFoot05CmPerSec: number;
  stopRoot1CmPerSec: number;
  stopRoot1P95CmPerSec: number;
  stopFoot1CmPerSec: number;
  stopFoot1P95CmPerSec: number;
  /** Facing error: the body's facing (thighs and shoulders) against the requested facing, over steps at least 1 s after the request changed; mean and 95th percentile (degrees). */
  facingSteps: number;
  facingErrorDeg: number;
  facingErrorP95Deg: number;

  // --- Controller bookkeeping ---------------------------------------------------------------
  /** Mean distance between where the input asked the root to be 0.5 s / 1 s ahead and where it went (cm). */
  trajectoryError05Cm: number;
  trajectoryError1Cm: number;
  searchesPerSec: number;
  transitionsPerSec: number;
  /** Largest change of any joint's world velocity across a transition step (m/s; diagnostic: popMax counts every step). */
  maxTransitionJump: number;
  /** The same measure over steps without a transition, 95th percentile (m/s). */
  typicalJumpP95: number;

  // --- Diagnostics from the contact labels (no targets: they see only labelled feet) -----------
  /**
   * Mean horizontal speed of the contact point (toe, else ankle) of feet the playing frame labels in
   * contact at both ends of a step, cm/s, and its 95th percentile; the same at the ankle.
   */
  labelSkateCmPerSec: number;
  labelSkateP95CmPerSec: number;
  labelAnkleSkateCmPerSec: number;
  labelAnkleSkateP95CmPerSec: number;
  /**
   * Feet labelled in contact against the ground: d = the contact point's height above the ground
   * under it, along the ground's normal (where the ground is steeper than a foot tilts, as on a
   * slope of maxFootTilt), minus its animated height above the animation's ground. |d| mean and
   * 95th percentile (cm); float max(d, 0) and penetration max(−d, 0), mean and 95th percentile (cm).
   */
  footGroundErrorCm: number;
  footGroundErrorP95Cm: number;
  footFloatCm: number;
  footFloatP95Cm: number;
  footPenetrationCm: number;
  footPenetrationP95Cm: number;
  /** Feet labelled swinging: how far the contact point is lower over the ground than at its last contact, 99th percentile and largest (cm). */
  swingPenetrationP99Cm: number;
  swingPenetrationMaxCm: number;
}

/**
 * Accumulated quality figures, shareable by many meters (a crowd reports one set of numbers) and
 * mergeable across threads (plain arrays and numbers: structured-cloneable).
 */
export class QualityStats {
  seconds = 0;
  steps = 0;
  // Output measures.
  footSteps = 0;
  skateAllSum = 0;
  skateAllCount = 0;
  skateNearSum = 0;
  skateNearCount = 0;
  skateNearHist = new Float64Array(SKATE_BINS + 1);
  belowCount = 0;
  depthHist = new Float64Array(DEPTH_BINS + 1);
  depthMax = 0;
  hipsHist = new Float64Array(HEIGHT_BINS + 1);
  plantedCount = 0;
  liftSum = 0;
  liftCount = 0;
  liftHist = new Float64Array(DEPTH_BINS + 1);
  hipsOffsetHist = new Float64Array(OFFSET_BINS + 1);
  motionSteps = 0;
  standSteps = 0;
  hoverSum = 0;
  /** Standing steps with the lowest foot above its planted height (the others hover 0). */
  hoverCount = 0;
  hoverHist = new Float64Array(DEPTH_BINS + 1);
  popHist = new Float64Array(POP_BINS + 1);
  popMax = 0;
  popJoint = -1;
  stopCount = 0;
  /** Per horizon (0.5 s, 1 s): the root's and lowest foot's speed sums and histograms (cm/s). */
  stopSamples = new Float64Array(2);
  stopRootSum = new Float64Array(2);
  stopFootSum = new Float64Array(2);
  stopRootHist = new Float64Array(2 * (STOP_BINS + 1));
  stopFootHist = new Float64Array(2 * (STOP_BINS + 1));
  facingCount = 0;
  facingSum = 0;
  facingHist = new Float64Array(FACING_BINS + 1);
  // Controller bookkeeping.
  maxJump = 0;
  jumpHist = new Float64Array(POP_BINS + 1);
  errSum = new Float64Array(2);
  errCount = new Float64Array(2);
  searches = 0;
  transitions = 0;
  // Contact-label diagnostics.
  skateSum = 0;
  skateCount = 0;
  skateHist = new Float64Array(SKATE_BINS + 1);
  ankleSkateSum = 0;
  ankleSkateHist = new Float64Array(SKATE_BINS + 1);
  groundCount = 0;
  groundErrorSum = 0;
  groundFloatSum = 0;
  groundPenetrationSum = 0;
  groundErrorHist = new Float64Array(GROUND_BINS + 1);
  groundFloatHist = new Float64Array(GROUND_BINS + 1);
  groundPenetrationHist = new Float64Array(GROUND_BINS + 1);
  swingPenetrationHist = new Float64Array(GROUND_BINS + 1);
  swingPenetrationMax = 0;

  /** Adds `o`'s counts, sums and histograms to these; maxima are kept (the larger pop keeps its joint). */
  merge(o: QualityStats): void {
    for (const key of Object.keys(this) as (keyof QualityStats)[]) {
      const mine = this[key] as unknown, theirs = o[key] as unknown;
      if (mine instanceof Float64Array) {
        const t = theirs as Float64Array;
        for (let i = 0; i < mine.length; i++) mine[i] += t[i];
      } else if (typeof mine === 'number' && !MAXIMA.has(key)) {
        (this as unknown as Record<string, number>)[key] = mine + (theirs as number);
      }
    }
    if (o.popMax > this.popMax) { this.popMax = o.popMax; this.popJoint = o.popJoint; }
    this.depthMax = Math.max(this.depthMax, o.depthMax);
    this.maxJump = Math.max(this.maxJump, o.maxJump);
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
    const mean = (sum: number, n: number) => (n > 0 ? sum / n : Number.NaN);
    const stop = (hist: Float64Array, h: number, q: number) => (this.stopSamples[h] > 0 ? quantileOf(hist.subarray(h * (STOP_BINS + 1), (h + 1) * (STOP_BINS + 1)), q, STOP_BIN) : Number.NaN);
    return {
      seconds: this.seconds,
      steps: this.steps,
      skateCmPerSec: mean(this.skateNearSum, this.skateNearCount),
      skateP95CmPerSec: this.skateNearCount > 0 ? quantileOf(this.skateNearHist, 0.95, SKATE_BIN) : Number.NaN,
      skateAllCmPerSec: mean(this.skateAllSum, this.skateAllCount),
      belowGroundShare: mean(this.belowCount, this.footSteps),
      belowGroundP99Cm: quantileWithZeros(this.depthHist, this.footSteps - this.belowCount, 0.99, DEPTH_BIN),
      belowGroundMaxCm: this.footSteps > 0 ? this.depthMax : Number.NaN,
      hipsHeightCm: quantileOf(this.hipsHist, 0.5, HEIGHT_BIN),
      plantedSteps: this.plantedCount,
      plantedLiftCm: mean(this.liftSum, this.plantedCount),
      plantedLiftP95Cm: this.plantedCount > 0 ? quantileWithZeros(this.liftHist, this.plantedCount - this.liftCount, 0.95, DEPTH_BIN) : Number.NaN,
      plantedLiftP99Cm: this.plantedCount > 0 ? quantileWithZeros(this.liftHist, this.plantedCount - this.liftCount, 0.99, DEPTH_BIN) : Number.NaN,
      hipsOffsetCm: quantileOf(this.hipsOffsetHist, 0.5, OFFSET_BIN) - OFFSET_RANGE,
      hipsOffsetP5Cm: quantileOf(this.hipsOffsetHist, 0.05, OFFSET_BIN) - OFFSET_RANGE,
      standingShare: mean(this.standSteps, this.motionSteps),
      standingHoverCm: mean(this.hoverSum, this.standSteps),
      standingHoverP95Cm: quantileWithZeros(this.hoverHist, this.standSteps - this.hoverCount, 0.95, DEPTH_BIN),
      popP999: this.motionSteps > 0 ? quantileOf(this.popHist, 0.999, POP_BIN) : Number.NaN,
      popMax: this.popJoint >= 0 ? this.popMax : Number.NaN,
      popJoint: this.popJoint,
      stops: this.stopCount,
      stopRoot05CmPerSec: mean(this.stopRootSum[0], this.stopSamples[0]),
      stopFoot05CmPerSec: mean(this.stopFootSum[0], this.stopSamples[0]),
      stopRoot1CmPerSec: mean(this.stopRootSum[1], this.stopSamples[1]),
      stopRoot1P95CmPerSec: stop(this.stopRootHist, 1, 0.95),
      stopFoot1CmPerSec: mean(this.stopFootSum[1], this.stopSamples[1]),
      stopFoot1P95CmPerSec: stop(this.stopFootHist, 1, 0.95),
      facingSteps: this.facingCount,
      facingErrorDeg: mean(this.facingSum, this.facingCount),
      facingErrorP95Deg: this.facingCount > 0 ? quantileOf(this.facingHist, 0.95, FACING_BIN) : Number.NaN,
      trajectoryError05Cm: this.errCount[0] ? this.errSum[0] / this.errCount[0] : 0,
      trajectoryError1Cm: this.errCount[1] ? this.errSum[1] / this.errCount[1] : 0,
      searchesPerSec: this.searches / seconds,
      transitionsPerSec: this.transitions / seconds,
      maxTransitionJump: this.maxJump,
      typicalJumpP95: percentile(this.jumpHist, 0.95) * POP_BIN,
      labelSkateCmPerSec: this.skateCount ? this.skateSum / this.skateCount : 0,
      labelSkateP95CmPerSec: percentile(this.skateHist, 0.95) * SKATE_BIN,
      labelAnkleSkateCmPerSec: this.skateCount ? this.ankleSkateSum / this.skateCount : 0,
      labelAnkleSkateP95CmPerSec: percentile(this.ankleSkateHist, 0.95) * SKATE_BIN,
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

/** Fields that merge by taking the larger value, not the sum (and popJoint, which goes with popMax). */
const MAXIMA: ReadonlySet<string> = new Set(['popMax', 'popJoint', 'depthMax', 'maxJump', 'swingPenetrationMax']);
