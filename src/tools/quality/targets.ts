/**
 * What "good enough" means for the quality measures (docs/quality.md, GUIDE §6): one constant,
 * shared by the `motionmatch quality` table, JSON and chart, by `tune` and by anything else that
 * judges a QualityReport. A target is a limit on the figure itself, a multiple of the data's own
 * figure (the database played plainly: what the captures do before any search or IK), or a
 * distance from it; some apply only where the data can do what they ask (a standing frame to stop
 * on, a sidestep to face the requested way with).
 */
import type { QualityReport } from '../../runtime/quality/meter.js';

/**
 * A measure meets its target when it is below the limit (or equal to it, when `inclusive`). The
 * limit is `limit` itself, `limit` times the data's own figure ('ratio'), or within `limit` of the
 * data's own figure either way ('near'). `needs` names what the data must hold for the target to
 * apply: frames where the capture stands ('standing'), motion that travels sideways ('sidesteps').
 */
export interface QualityTarget {
  readonly limit: number;
  readonly inclusive: boolean;
  readonly kind?: 'value' | 'ratio' | 'near';
  /** A ratio target is never tighter than this (in the measure's unit). */
  readonly floor?: number;
  readonly needs?: 'standing' | 'sidesteps';
}

/** The data's own level (plain playback of the database) and what the data holds. */
export interface DataLevel {
  readonly report: QualityReport;
  /** The data holds frames where the capture stands (root still, both feet down). */
  readonly standing: boolean;
  /** The data holds motion that travels sideways relative to its facing, both ways. */
  readonly sidesteps: boolean;
}

/** Targets by QualityReport field; a field without an entry has no target. */
export const QUALITY_TARGETS = {
  /**
   * Foot skate near the ground: at most 1.2 times the data's own, and never asked below 3 cm/s (data
   * as clean as the procedural built-in set, 0.6 cm/s, would ask for less than the measure can
   * tell from a foot landing at all).
   */
  skateCmPerSec: { limit: 1.2, inclusive: true, kind: 'ratio', floor: 3 },
  /** Feet below the ground: 1 cm at the 99th percentile, 3 cm at most. */
  belowGroundP99Cm: { limit: 1, inclusive: true },
  belowGroundMaxCm: { limit: 3, inclusive: true },
  /** The hips within 2 cm of the captured pose's height at the frame played (median). */
  hipsOffsetCm: { limit: 2, inclusive: true, kind: 'near' },
  /** A standing character's lowest foot within 1 cm of the ground. */
  standingHoverCm: { limit: 1, inclusive: true },
  /** The largest per-step velocity change of a joint: at most 1.5 times the data's own largest. */
  popMax: { limit: 1.5, inclusive: true, kind: 'ratio' },
  /** One second after a stop request: the root below 2 cm/s, the feet below 1 cm/s, where the data holds standing frames. */
  stopRoot1CmPerSec: { limit: 2, inclusive: false, needs: 'standing' },
  stopFoot1CmPerSec: { limit: 1, inclusive: false, needs: 'standing' },
  /** Facing error against the requested facing, where the data holds sidesteps. */
  facingErrorDeg: { limit: 15, inclusive: true, needs: 'sidesteps' },
  /** Transitions per agent-second: more is visible flicker. */
  transitionsPerSec: { limit: 4, inclusive: true },
  /** Where the root went 1 s after a prediction versus where the input asked for. */
  trajectoryError1Cm: { limit: 10, inclusive: false },
} as const satisfies Partial<Record<keyof QualityReport, QualityTarget>>;

/** What a run on uneven ground adds to its report: how it compares with the same run on flat ground. */
export interface TerrainComparison {
  /** Foot skate on the terrain minus the skate of the same run on flat ground (cm/s). */
  skateOverFlatCmPerSec: number;
}

/** Every figure a quality row may show: its QualityReport, and on uneven ground the comparison with flat. */
export type QualityFigures = QualityReport & Partial<TerrainComparison>;

/**
 * Targets on uneven ground (`motionmatch quality --terrain`), judged on the terrain rows besides the
 * targets above (whose floor measures, from the output joint positions, hold the feet against the
 * ground under them there): foot skate no worse than on flat ground by more than 0.5 cm/s. The feet
 * labelled in contact against the ground (`footGroundErrorP95Cm`, `footPenetrationP95Cm`) read the
 * frames' contact labels and are diagnostics, as on flat ground (docs/terrain.md, stop 60): a foot
 * the frame has down but the leg has let go of steps after the body, lifted on purpose.
 */
export const TERRAIN_QUALITY_TARGETS = {
  skateOverFlatCmPerSec: { limit: 0.5, inclusive: true },
} as const satisfies Partial<Record<keyof QualityFigures, QualityTarget>>;

/** Whether the data holds what `target` needs (true when it needs nothing). */
export function targetApplies(target: QualityTarget, data: DataLevel | null): boolean {
  if (target.needs === undefined) return true;
  if (data === null) return false;
  return target.needs === 'standing' ? data.standing : data.sidesteps;
}

/**
 * true / false against the target; null where it cannot be judged: a figure that is not a number,
 * a target relative to the data without the data's figure, or a target the data cannot meet.
 * `dataValue` is the data's own figure for the measure (NaN when unknown).
 */
export function meetsTarget(value: number, target: QualityTarget, dataValue = Number.NaN, applies = true): boolean | null {
  if (!Number.isFinite(value) || !applies) return null;
  const kind = target.kind ?? 'value';
  if (kind !== 'value' && !Number.isFinite(dataValue)) return null;
  const x = kind === 'near' ? Math.abs(value - dataValue) : value;
  return target.inclusive ? x <= targetLimit(target, dataValue) : x < targetLimit(target, dataValue);
}

/** The limit in the measure's own unit for a data level of `dataValue` (the near kind: the distance allowed). */
export function targetLimit(target: QualityTarget, dataValue = Number.NaN): number {
  const kind = target.kind ?? 'value';
  if (kind === 'ratio') return Math.max(target.limit * dataValue, target.floor ?? -Infinity);
  return target.limit;
}

/** "< 1", "<= 4", "<= 1.2x data", "within 2 of data". */
export function targetText(target: QualityTarget): string {
  const kind = target.kind ?? 'value', op = target.inclusive ? '<=' : '<';
  if (kind === 'ratio') return `${op} ${target.limit}x data${target.floor !== undefined ? ` (>= ${target.floor})` : ''}`;
  return kind === 'near' ? `within ${target.limit} of data` : `${op} ${target.limit}`;
}

/** "where the data holds standing frames", or '' for a target that needs nothing. */
export function needsText(target: QualityTarget): string {
  return target.needs === 'standing' ? 'where the data holds standing frames' : target.needs === 'sidesteps' ? 'where the data holds sidesteps' : '';
}
