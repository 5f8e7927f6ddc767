/**
 * Which directions of travel, relative to the facing, a database can move in: forward walks travel
 * at ~0°, backward walks at 180°, sidesteps at ±90°. A request the data has no motion for (a
 * sidestep asked of a database without sidesteps) can then be answered with the nearest motion it
 * has, the legs facing that way and the upper body turning the rest (orientation warping), instead
 * of a compromise that neither faces nor moves as asked.
 */
import type { Database } from '../../database/database.js';
import { databaseRuntime } from '../database-runtime.js';
import { wrapAngle } from '../../math/angle.js';

/** Bins of travel angle (radians in (−π, π], 0 = straight ahead, +π/2 = to the character's left... see below). */
export const TRAVEL_BINS = 36;
const BIN = (2 * Math.PI) / TRAVEL_BINS;
/** Root speed (m/s) above which a frame counts as travelling. */
const MOVING_SPEED = 0.3;
/**
 * Seconds of travel a direction bin needs, within one clip, to count as covered. Within one clip:
 * the same motion in several clips (takes of one move, a set given twice) or a few frames of drift
 * in many clips is no motion that travels that way. Summed over the database, three copies of the
 * shared captures covered 110-120° from 15 scattered frames (5 per copy, runs of at most 6 frames);
 * the legs were then turned onto that "motion" for every sidestep request and the strafe's 1 s
 * trajectory error went from 4.3 to 18.2 cm.
 */
const COVERED_SECONDS = 0.5;

export interface TravelCoverage {
  /** Per bin of travel angle (atan2(local vx, local vz): the yaw convention, +X is +angle): frames that travel that way, over the whole database. */
  readonly frames: Float64Array;
  /** Per bin: the most frames that travel that way within one clip. */
  readonly clipFrames: Float64Array;
  /** Per bin: 1 when one clip has at least COVERED_SECONDS of travel in that direction. */
  readonly covered: Uint8Array;
}

const cache = new WeakMap<Database, TravelCoverage>();

/** The database's travel directions (computed once per database from its search candidates' root velocities, clip by clip). */
export function travelCoverage(db: Database): TravelCoverage {
  let c = cache.get(db);
  if (c) return c;
  const rt = databaseRuntime(db), V = rt.rootVelocity;
  const frames = new Float64Array(TRAVEL_BINS), clipFrames = new Float64Array(TRAVEL_BINS), inClip = new Float64Array(TRAVEL_BINS);
  for (const clip of db.clips) {
    inClip.fill(0);
    for (let f = clip.start; f < clip.start + clip.count; f++) {
      if (!db.candidates[f]) continue;
      const vx = V[3 * f], vz = V[3 * f + 2];
      if (vx * vx + vz * vz < MOVING_SPEED * MOVING_SPEED) continue;
      inClip[travelBin(Math.atan2(vx, vz))]++;
    }
    for (let b = 0; b < TRAVEL_BINS; b++) { frames[b] += inClip[b]; clipFrames[b] = Math.max(clipFrames[b], inClip[b]); }
  }
  const covered = new Uint8Array(TRAVEL_BINS);
  for (let b = 0; b < TRAVEL_BINS; b++) covered[b] = clipFrames[b] >= COVERED_SECONDS * db.fps ? 1 : 0;
  c = { frames, clipFrames, covered };
  cache.set(db, c);
  return c;
}

/** The bin of a travel angle (radians). */
export function travelBin(angle: number): number {
  const a = wrapAngle(angle) + Math.PI; // (0, 2π]
  return Math.min(TRAVEL_BINS - 1, Math.floor(a / BIN)) % TRAVEL_BINS;
}

/**
 * The covered travel angle nearest to `angle` (radians; `angle` itself when its bin is covered,
 * else the nearest covered bin's edge towards it). NaN when the data covers no direction at all.
 */
export function nearestCoveredTravel(c: TravelCoverage, angle: number): number {
  const b = travelBin(angle);
  if (c.covered[b]) return angle;
  for (let d = 1; d <= TRAVEL_BINS / 2; d++) {
    const up = (b + d) % TRAVEL_BINS, down = (b - d + TRAVEL_BINS) % TRAVEL_BINS;
    const upOk = c.covered[up] === 1, downOk = c.covered[down] === 1;
    if (!upOk && !downOk) continue;
    // The edge of the covered bin that faces `angle`.
    const upEdge = -Math.PI + up * BIN, downEdge = -Math.PI + (down + 1) * BIN;
    if (upOk && downOk) return Math.abs(wrapAngle(upEdge - angle)) <= Math.abs(wrapAngle(downEdge - angle)) ? upEdge : downEdge;
    return upOk ? upEdge : downEdge;
  }
  return Number.NaN;
}
