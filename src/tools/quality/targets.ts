/**
 * What "good enough" means for the quality measures (GUIDE §6): one constant, shared by the
 * `motionmatch quality` table and chart, and by anything else that judges a QualityReport.
 */
import type { QualityReport } from '../../runtime/quality/metrics.js';

/** A measure meets its target when it is below `limit` (or equal to it, when `inclusive`). */
export interface QualityTarget {
  readonly limit: number;
  readonly inclusive: boolean;
}

/** Targets by QualityReport field; a field without an entry has no target. */
export const QUALITY_TARGETS = {
  /** Mean horizontal speed of a foot in contact. */
  footSkateCmPerSec: { limit: 1, inclusive: false },
  footSkateP95CmPerSec: { limit: 3, inclusive: false },
  /** Transitions per agent-second: more is visible flicker. */
  transitionsPerSec: { limit: 4, inclusive: true },
  /** Where the root went 1 s after a prediction versus where the input asked for. */
  trajectoryError1Cm: { limit: 10, inclusive: false },
  /** Largest change of a joint's velocity across a transition. */
  maxTransitionJump: { limit: 6, inclusive: false },
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
 * targets above: feet in contact within 2 cm of the ground and no deeper in it than 1 cm (95th
 * percentiles), and foot skate no worse than on flat ground by more than 0.5 cm/s.
 */
export const TERRAIN_QUALITY_TARGETS = {
  footGroundErrorP95Cm: { limit: 2, inclusive: false },
  footPenetrationP95Cm: { limit: 1, inclusive: false },
  skateOverFlatCmPerSec: { limit: 0.5, inclusive: true },
} as const satisfies Partial<Record<keyof QualityFigures, QualityTarget>>;

export function meetsTarget(value: number, target: QualityTarget): boolean {
  return target.inclusive ? value <= target.limit : value < target.limit;
}

/** "< 1", "<= 4". */
export function targetText(target: QualityTarget): string {
  return `${target.inclusive ? '<=' : '<'} ${target.limit}`;
}
