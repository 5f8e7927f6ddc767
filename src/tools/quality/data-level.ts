/**
 * The data's own level: the quality measures of the database played plainly (every clip, frame by
 * frame, no search, no IK), and what the data holds that some targets need. Pure (no Node): the
 * demo's quality panel shows it beside the player's figures.
 */
import type { Database } from '../../database/database.js';
import { poseSource } from '../../database/pose-source.js';
import { playbackQuality } from '../../runtime/quality/playback-quality.js';
import { nearestCoveredTravel, travelCoverage } from '../../runtime/controller/travel-coverage.js';
import type { QualityReport } from '../../runtime/quality/meter.js';
import type { DataLevel } from './targets.js';

/** A travel direction (radians from the facing) the data covers when it has motion within this of it. */
const SIDESTEP_TOLERANCE = (20 * Math.PI) / 180;

const dataLevels = new WeakMap<Database, Map<number, DataLevel>>();

/**
 * The data's own level at `hz` steps per second (plain playback, runtime/quality/playback-quality.ts), and
 * whether the data holds standing frames and sidesteps both ways (the targets that need them apply
 * only then). Cached per set of poses (database/pose-source.ts: the same for every weighting a sweep
 * tries) and rate.
 */
export function dataLevel(db: Database, hz: number): DataLevel {
  const source = poseSource(db);
  let byRate = dataLevels.get(source);
  if (!byRate) { byRate = new Map(); dataLevels.set(source, byRate); }
  let level = byRate.get(hz);
  if (!level) {
    level = dataLevelOf(source, playbackQuality(source, hz));
    byRate.set(hz, level);
  }
  return level;
}

/** The DataLevel of a plain-playback report of `db` (measured elsewhere, e.g. a few clips per task). */
export function dataLevelOf(db: Database, report: QualityReport): DataLevel {
  const coverage = travelCoverage(db);
  const covers = (a: number) => { const n = nearestCoveredTravel(coverage, a); return Number.isFinite(n) && Math.abs(n - a) <= SIDESTEP_TOLERANCE; };
  return { report, standing: report.standingShare > 0, sidesteps: covers(Math.PI / 2) && covers(-Math.PI / 2) };
}
