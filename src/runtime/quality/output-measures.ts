/**
 * The output measures of one step (docs/quality.md), from world joint positions alone: what a
 * viewer sees. The quality meter feeds them the engine's output after IK (meter.ts); plain playback
 * of the database feeds them the captured poses (playback-quality.ts), so that every figure has
 * the data's own level beside it, measured by the same lines.
 */
import type { QualityStats } from './metrics.js';
import type { QualityRig } from './quality-rig.js';
import { addSample, DEPTH_BIN, FACING_BIN, HEIGHT_BIN, OFFSET_BIN, OFFSET_RANGE, POP_BIN, SKATE_BIN, STOP_BIN, STOP_BINS } from './histogram.js';

/** H of the skate weight (m): a foot joint this far above its own low height no longer counts as on the ground. */
export const SKATE_HEIGHT = 0.025;
/** The character stands once its root has moved slower than STANDING_SPEED (m/s) for STANDING_SECONDS (s): still for a while, not a turn's pause. */
export const STANDING_SPEED = 0.02;
export const STANDING_SECONDS = 0.5;

/**
 * How much a foot joint's horizontal speed counts as skate at height h (m) above its own low
 * height: clamp(2 − 2^(h/H), 0, 1) — 1 on (or below) the ground, 0 from H up (Zhang et al. 2018).
 */
export function skateWeight(h: number): number {
  // Outside (0, H) without the power (most foot-joint steps).
  if (h >= SKATE_HEIGHT) return 0;
  if (h <= 0) return 1;
  // 2^(h/H) as e^(h/H · ln 2): Math.pow costs 7-10 times Math.exp in V8 (foot-ik/on-ground.ts groundHold).
  const w = 2 - Math.exp((h / SKATE_HEIGHT) * Math.LN2);
  return w < 0 ? 0 : w > 1 ? 1 : w;
}

/** What recordFeet found besides the statistics: the lowest foot joint's height (m) and speed (m/s, 3D). */
export const LOWEST_FOOT = new Float64Array(2);

/**
 * Skate and depth of every foot joint over one step of `dt` seconds. `wp`: world positions now;
 * `prev[p + 3j]` the step before (p < 0: the first step, depth only); `ground[k]`: the ground's
 * height under foot joint k now; `heights[h + k]`: each foot joint's height over its low height at
 * the step before, overwritten with the new one; the step's dt is `T[dtAt]` (a number passed to a
 * call that is not inlined is a heap box, and a crowd measures every agent every step). Fills LOWEST_FOOT.
 */
export function recordFeet(stats: QualityStats, rig: QualityRig, wp: Float64Array, prev: Float64Array, p: number, ground: Float64Array, heights: Float64Array, h: number, T: Float64Array, dtAt: number): void {
  const feet = rig.feet, dt = T[dtAt];
  let lowH = Infinity, lowSpeed = 0;
  for (let k = 0; k < feet.length; k++) {
    const j = 3 * feet[k], y = wp[j + 1], g = ground[k];
    stats.footSteps++;
    const depth = (g - y) * 100;
    if (depth > 0) {
      stats.belowCount++;
      if (depth > stats.depthMax) stats.depthMax = depth;
      addSample(stats.depthHist, depth, DEPTH_BIN);
    }
    const over = y - g - rig.restHeights[k];
    if (p >= 0 && dt > 0) {
      const dx = wp[j] - prev[p + j], dy = wp[j + 1] - prev[p + j + 1], dz = wp[j + 2] - prev[p + j + 2];
      const speed = Math.sqrt(dx * dx + dz * dz) / dt * 100;
      // The step's height: halfway between its ends.
      const mid = 0.5 * (over + heights[h + k]);
      const s = speed * skateWeight(mid);
      stats.skateAllSum += s;
      stats.skateAllCount++;
      if (mid < SKATE_HEIGHT) {
        stats.skateNearSum += s;
        stats.skateNearCount++;
        addSample(stats.skateNearHist, s, SKATE_BIN);
      }
      if (over < lowH) { lowH = over; lowSpeed = Math.sqrt(dx * dx + dy * dy + dz * dz) / dt; }
    } else if (over < lowH) {
      lowH = over; lowSpeed = 0;
    }
    heights[h + k] = over;
  }
  LOWEST_FOOT[0] = lowH;
  LOWEST_FOOT[1] = lowSpeed;
}

/** The hips' height over the ground under them (m) `V[at]`, and the captured pose's at the frame played (m) `V[at + 1]`. */
export function recordHips(stats: QualityStats, V: Float64Array, at: number): void {
  const height = V[at], captured = V[at + 1];
  addSample(stats.hipsHist, Math.max(0, height * 100), HEIGHT_BIN);
  addSample(stats.hipsOffsetHist, (height - captured) * 100 + OFFSET_RANGE, OFFSET_BIN);
}

/**
 * A leg's contact point against the capture at the frame played: `V[at]` and `V[at + 1]` are its
 * heights over its planted height (m) in the captured pose and in the output. Counted only where the
 * capture has the foot on the ground (captured below SKATE_HEIGHT): how much higher it is shown.
 */
export function recordPlantedLift(stats: QualityStats, V: Float64Array, at: number): void {
  const captured = V[at], shown = V[at + 1];
  if (!(captured < SKATE_HEIGHT)) return;
  stats.plantedCount++;
  const lift = (shown - captured) * 100;
  if (!(lift > 0)) return;
  stats.liftSum += lift;
  stats.liftCount++;
  addSample(stats.liftHist, lift, DEPTH_BIN);
}

/**
 * A step after which the root has been still for `V[at]` seconds (root speed below STANDING_SPEED;
 * standing from STANDING_SECONDS on), with the lowest foot joint `V[at + 1]` m above its planted height.
 */
export function recordStanding(stats: QualityStats, V: Float64Array, at: number): void {
  const stillSeconds = V[at], lowest = V[at + 1];
  stats.motionSteps++;
  if (!(stillSeconds >= STANDING_SECONDS - 1e-9)) return;
  const hover = Math.max(0, lowest) * 100;
  stats.standSteps++;
  stats.hoverSum += hover;
  // (feet down to their planted height count as 0: kept out of the histogram, see quantileWithZeros)
  if (hover > 0) { stats.hoverCount++; addSample(stats.hoverHist, hover, DEPTH_BIN); }
}

/** What recordPops found: the largest change of a joint's velocity this step (m/s). */
export const POP_JUMP = new Float64Array(1);

/**
 * The largest change of a joint's world velocity between the step just taken (`wp` against the
 * positions at `p1`, over dt = T[dtAt]) and the one before (`p1` against `p2`, over dtPrev =
 * T[dtPrevAt]), over the first `n` values (3 per joint) of `H`'s slots, into the pop figures and
 * POP_JUMP (m/s). With `keep`, `wp` also replaces the oldest slot (p2) as it is read: the meter's
 * history moves on in the same pass over the joints (a second pass to copy it was a third of the
 * meter's time in a crowd).
 */
export function recordPops(stats: QualityStats, wp: Float64Array, H: Float64Array, p1: number, p2: number, n: number, T: Float64Array, dtAt: number, dtPrevAt: number, keep = false): void {
  const dt = T[dtAt], dtPrev = T[dtPrevAt];
  // Change of world velocity, per joint: (x_t − x_{t−1}) / dt − (x_{t−1} − x_{t−2}) / dt_prev.
  const a = 1 / dt, b = 1 / dtPrev;
  let jump = 0, joint = -1;
  for (let i = 0; i < n; i += 3) {
    const x1 = H[p1 + i], y1 = H[p1 + i + 1], z1 = H[p1 + i + 2];
    const x = wp[i], y = wp[i + 1], z = wp[i + 2];
    const ax = (x - x1) * a - (x1 - H[p2 + i]) * b;
    const ay = (y - y1) * a - (y1 - H[p2 + i + 1]) * b;
    const az = (z - z1) * a - (z1 - H[p2 + i + 2]) * b;
    if (keep) { H[p2 + i] = x; H[p2 + i + 1] = y; H[p2 + i + 2] = z; }
    const d = ax * ax + ay * ay + az * az;
    if (d > jump) { jump = d; joint = i / 3; }
  }
  jump = Math.sqrt(jump);
  addSample(stats.popHist, jump, POP_BIN);
  if (jump > stats.popMax) { stats.popMax = jump; stats.popJoint = joint; }
  POP_JUMP[0] = jump;
}

/** A facing error (radians, any sign) into the facing figures. */
export function recordFacing(stats: QualityStats, error: number): void {
  const deg = Math.abs(error) * (180 / Math.PI);
  stats.facingCount++;
  stats.facingSum += deg;
  addSample(stats.facingHist, deg, FACING_BIN);
}

/** Horizon h's (0: 0.5 s, 1: 1 s) speeds after a stop request: the root's and the lowest foot joint's (m/s). */
export function recordStop(stats: QualityStats, h: number, rootSpeed: number, footSpeed: number): void {
  const root = rootSpeed * 100, foot = footSpeed * 100, at = h * (STOP_BINS + 1);
  stats.stopSamples[h]++;
  stats.stopRootSum[h] += root;
  stats.stopFootSum[h] += foot;
  stats.stopRootHist[at + Math.min(STOP_BINS, Math.floor(root / STOP_BIN))]++;
  stats.stopFootHist[at + Math.min(STOP_BINS, Math.floor(foot / STOP_BIN))]++;
}
