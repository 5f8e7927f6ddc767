/**
 * A short controller run under one steady request: how the engine actually does on it with this
 * database. The character starts on the frame that best matches the request's trajectory, is
 * driven by the request for a warm-up (springs settle, the first transitions happen), then
 * measured: foot skate and transitions per second by the quality meter (runtime/quality/metrics.ts), and
 * how far the character strays from its simulated trajectory.
 *
 * Trajectory error here is the mean distance between the character's root and its simulated
 * trajectory (where the input drove it). For a constant input this is what the quality meter's
 * 1 s figure measures (its prediction of the simulation a second ahead is exact when the input
 * holds); unlike the meter it also judges turning requests, whose input changes every step.
 */
import type { Database } from '../../database/database.js';
import { MotionMatchingController, createInput } from '../../runtime/controller/controller.js';
import type { ControllerOptions } from '../../runtime/controller/options.js';
import { QualityMeter, QualityStats } from '../../runtime/quality/meter.js';
import type { PoseSearchPort } from '../../runtime/search-port.js';
import { quatYaw } from '../../math/quat.js';
import { wrapAngle } from '../../math/angle.js';
import type { CoverageCell } from './grid.js';
import { steadyInput } from './query.js';

export interface CellRunOptions {
  /** Steps per second (default 30). */
  hz: number;
  /** Seconds driven before measuring (default 1.5) and measured (default 3). */
  warmupSeconds: number;
  measureSeconds: number;
  requireTags: readonly string[] | null;
  excludeTags: readonly string[] | null;
}

export const DEFAULT_CELL_RUN: CellRunOptions = { hz: 30, warmupSeconds: 1.5, measureSeconds: 3, requireTags: null, excludeTags: null };

export interface CellRunResult {
  /** Mean distance between the root and the simulated trajectory while measured (cm). */
  trajectoryErrorCm: number;
  /** Mean angle between the root's facing and the simulated facing while measured (degrees). */
  facingErrorDeg: number;
  footSkateCmPerSec: number;
  transitionsPerSec: number;
  /** The clip played most while measured (index into db.clips). */
  mainClip: number;
}

/**
 * Runs one controller (options `controllerOptions`, searches through `search`) under the cell's
 * steady request from `startFrame`. Deterministic.
 */
export function runCell(db: Database, cell: CoverageCell, startFrame: number, search: PoseSearchPort, controllerOptions: Partial<ControllerOptions>, o: CellRunOptions = DEFAULT_CELL_RUN): CellRunResult {
  // Orientation warping off: coverage judges what the data does with a request as asked; warping
  // only answers a hole with the nearest motion the data has, and would hide the hole.
  const c = new MotionMatchingController(db, { ...controllerOptions, orientationWarp: 0 });
  c.reset(startFrame, 0, 0, 0);
  const input = createInput();
  input.requireTags = o.requireTags;
  input.excludeTags = o.excludeTags;
  const dt = 1 / o.hz;
  const warm = Math.round(o.warmupSeconds * o.hz), measured = Math.max(1, Math.round(o.measureSeconds * o.hz));
  let step = 0;
  const drive = (): void => {
    steadyInput(cell, step * dt, input);
    c.update(dt, input, search);
    step++;
  };
  for (let i = 0; i < warm; i++) drive();
  const meter = new QualityMeter(c, new QualityStats(), dt);
  let distance = 0, angle = 0;
  const played = new Map<number, number>();
  for (let i = 0; i < measured; i++) {
    drive();
    meter.observe(input, dt);
    distance += Math.hypot(c.rootPosition[0] - c.simPosition[0], c.rootPosition[2] - c.simPosition[2]);
    angle += Math.abs(wrapAngle(quatYaw(c.rootRotation, 0) - quatYaw(c.simRotation, 0)));
    const clip = c.clipIndex;
    played.set(clip, (played.get(clip) ?? 0) + 1);
  }
  const q = meter.report();
  let mainClip = -1, most = 0;
  for (const [clip, n] of played) if (n > most || (n === most && clip < mainClip)) { mainClip = clip; most = n; }
  return {
    trajectoryErrorCm: (100 * distance) / measured,
    facingErrorDeg: ((180 / Math.PI) * angle) / measured,
    footSkateCmPerSec: q.skateAllCmPerSec,
    transitionsPerSec: q.transitionsPerSec,
    mainClip,
  };
}
