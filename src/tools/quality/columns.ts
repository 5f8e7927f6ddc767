/**
 * The measures `motionmatch quality` shows, as one list of column definitions: the table, the
 * JSON verdicts and the SVG chart are all drawn from it, so a new QualityReport field becomes a
 * column (with or without a target) by adding one entry here. Uneven ground (`--terrain`) adds the
 * columns of TERRAIN_QUALITY_COLUMNS.
 */
import type { QualityReport } from '../../runtime/quality/metrics.js';
import { QUALITY_TARGETS, TERRAIN_QUALITY_TARGETS, meetsTarget, type QualityFigures, type QualityTarget } from './targets.js';

export interface QualityColumn {
  /** The field shown: a QualityReport field, or on uneven ground a comparison with flat ground. */
  readonly key: keyof QualityFigures;
  /** Full name (chart titles), and the table's shorter header. */
  readonly label: string;
  readonly header: string;
  readonly unit: string;
  /** Decimals shown. */
  readonly digits: number;
  /** Threshold the value should stay under (marked in the table and drawn in the chart). */
  readonly target?: QualityTarget;
}

export const QUALITY_COLUMNS: readonly QualityColumn[] = [
  { key: 'footSkateCmPerSec', label: 'foot skate, mean', header: 'skate mean', unit: 'cm/s', digits: 2, target: QUALITY_TARGETS.footSkateCmPerSec },
  { key: 'footSkateP95CmPerSec', label: 'foot skate, 95th percentile', header: 'skate p95', unit: 'cm/s', digits: 1, target: QUALITY_TARGETS.footSkateP95CmPerSec },
  // Secondary: a heel rolling off a planted toe moves the ankle, as it should.
  { key: 'ankleSkateCmPerSec', label: 'ankle skate, mean (secondary)', header: 'ankle', unit: 'cm/s', digits: 2 },
  { key: 'transitionsPerSec', label: 'transitions per second', header: 'transitions', unit: '/s', digits: 2, target: QUALITY_TARGETS.transitionsPerSec },
  { key: 'trajectoryError1Cm', label: '1 s trajectory error', header: 'traj. err 1 s', unit: 'cm', digits: 1, target: QUALITY_TARGETS.trajectoryError1Cm },
  { key: 'maxTransitionJump', label: 'max transition jump', header: 'max jump', unit: 'm/s', digits: 2, target: QUALITY_TARGETS.maxTransitionJump },
  { key: 'searchesPerSec', label: 'searches per second', header: 'searches', unit: '/s', digits: 1 },
];

/**
 * The columns `motionmatch quality --terrain` adds: the feet against the ground (these figures are in
 * every QualityReport; on flat ground they measure against y = 0) and the skate next to the same
 * run on flat ground (terrain rows only).
 */
export const TERRAIN_QUALITY_COLUMNS: readonly QualityColumn[] = [
  { key: 'footGroundErrorP95Cm', label: 'feet in contact: distance from the ground, 95th percentile', header: 'ground p95', unit: 'cm', digits: 2, target: TERRAIN_QUALITY_TARGETS.footGroundErrorP95Cm },
  { key: 'footPenetrationP95Cm', label: 'feet in contact: depth in the ground, 95th percentile', header: 'in ground p95', unit: 'cm', digits: 2, target: TERRAIN_QUALITY_TARGETS.footPenetrationP95Cm },
  { key: 'swingPenetrationMaxCm', label: 'swinging feet: deepest in the ground', header: 'swing in max', unit: 'cm', digits: 1 },
  { key: 'skateOverFlatCmPerSec', label: 'foot skate minus the same run on flat ground', header: 'skate vs flat', unit: 'cm/s', digits: 2, target: TERRAIN_QUALITY_TARGETS.skateOverFlatCmPerSec },
];

/** The table's columns: QUALITY_COLUMNS, and with a terrain TERRAIN_QUALITY_COLUMNS after them. */
export function qualityColumns(terrain: boolean): readonly QualityColumn[] {
  return terrain ? [...QUALITY_COLUMNS, ...TERRAIN_QUALITY_COLUMNS] : QUALITY_COLUMNS;
}

/** The column's value in a row's report (NaN where the row has none, e.g. the flat rows' comparison with flat). */
export function columnValue(column: QualityColumn, report: QualityReport): number {
  const v = (report as QualityFigures)[column.key];
  return typeof v === 'number' ? v : Number.NaN;
}

/** True / false against the column's target, null when it has none or the value is not a number. */
export function columnVerdict(column: QualityColumn, report: QualityReport): boolean | null {
  const v = columnValue(column, report);
  return column.target && Number.isFinite(v) ? meetsTarget(v, column.target) : null;
}

/** A number with the column's unit: "1 cm/s", "4/s". */
export function withUnit(text: string, column: QualityColumn): string {
  return column.unit.startsWith('/') ? `${text}${column.unit}` : `${text} ${column.unit}`;
}

/** The value as the table and chart print it ("–" when it is not a number). */
export function formatColumnValue(column: QualityColumn, value: number): string {
  return Number.isFinite(value) ? value.toFixed(column.digits) : '–';
}
