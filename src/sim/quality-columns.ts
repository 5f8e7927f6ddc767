/**
 * The measures `motionmatch quality` shows, as one list of column definitions: the table, the
 * JSON verdicts and the SVG chart are all drawn from it, so a new QualityReport field becomes a
 * column (with or without a target) by adding one entry here.
 */
import type { QualityReport } from '../runtime/metrics.js';
import { QUALITY_TARGETS, meetsTarget, type QualityTarget } from './quality-targets.js';

export interface QualityColumn {
  /** The QualityReport field shown. */
  readonly key: keyof QualityReport;
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

export function columnValue(column: QualityColumn, report: QualityReport): number {
  return report[column.key];
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
