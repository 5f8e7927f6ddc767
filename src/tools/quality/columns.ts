/**
 * The measures `motionmatch quality` shows, as one list of column definitions: the table, the
 * JSON verdicts and the SVG chart are all drawn from it, so a new QualityReport field becomes a
 * column (with or without a target) by adding one entry here. Output measures come first, each with
 * the data's own level beside it (DataLevel); then the controller's bookkeeping; the contact-label
 * figures last, as diagnostics without targets. Uneven ground (`--terrain`) adds the columns of
 * TERRAIN_QUALITY_COLUMNS.
 */
import type { QualityReport } from '../../runtime/quality/meter.js';
import {
  QUALITY_TARGETS, TERRAIN_QUALITY_TARGETS, meetsTarget, targetApplies,
  type DataLevel, type QualityFigures, type QualityTarget,
} from './targets.js';

export interface QualityColumn {
  /** The field shown: a QualityReport field, or on uneven ground a comparison with flat ground. */
  readonly key: keyof QualityFigures;
  /** Full name (chart titles, the table's first column). */
  readonly label: string;
  readonly unit: string;
  /** Decimals shown. */
  readonly digits: number;
  /** Threshold the value should stay under (marked in the table and drawn in the chart). */
  readonly target?: QualityTarget;
  /** The data's own figure is shown beside it (plain playback measures it too). */
  readonly data?: boolean;
  /** Shown as a percentage (a share 0-1 printed ×100). */
  readonly percent?: boolean;
  /** A diagnostic: printed, never judged (no target, and no target may be given). */
  readonly diagnostic?: boolean;
  /** Its figures may be negative (a difference): the chart draws their size. */
  readonly signed?: boolean;
  /**
   * Its target judges runs on uneven ground only (a report that carries the comparison with flat
   * ground, skateOverFlatCmPerSec): a flat twin shows the figure beside its terrain row, unjudged,
   * so that it gets the verdicts of the same run without --terrain.
   */
  readonly terrainOnly?: boolean;
}

export const QUALITY_COLUMNS: readonly QualityColumn[] = [
  { key: 'skateCmPerSec', label: 'foot skate near the ground, mean', unit: 'cm/s', digits: 1, target: QUALITY_TARGETS.skateCmPerSec, data: true },
  { key: 'skateP95CmPerSec', label: 'foot skate near the ground, p95', unit: 'cm/s', digits: 0, data: true },
  { key: 'skateAllCmPerSec', label: 'foot skate, mean over all steps', unit: 'cm/s', digits: 1, data: true },
  { key: 'belowGroundShare', label: 'foot joints below the ground', unit: '%', digits: 1, data: true, percent: true },
  { key: 'belowGroundP99Cm', label: 'depth below the ground, p99', unit: 'cm', digits: 2, target: QUALITY_TARGETS.belowGroundP99Cm, data: true },
  { key: 'belowGroundMaxCm', label: 'depth below the ground, max', unit: 'cm', digits: 2, target: QUALITY_TARGETS.belowGroundMaxCm, data: true },
  { key: 'hipsHeightCm', label: 'hips height, median', unit: 'cm', digits: 1, data: true },
  { key: 'hipsOffsetCm', label: 'hips height against the frame played, median', unit: 'cm', digits: 2, target: QUALITY_TARGETS.hipsOffsetCm, data: true, signed: true },
  { key: 'hipsOffsetP5Cm', label: 'hips height against the frame played, p5', unit: 'cm', digits: 2, data: true, signed: true },
  { key: 'plantedLiftCm', label: 'feet the capture has down, shown lifted: mean', unit: 'cm', digits: 2, data: true },
  { key: 'plantedLiftP95Cm', label: 'feet the capture has down, shown lifted: p95', unit: 'cm', digits: 2, data: true },
  { key: 'plantedLiftP99Cm', label: 'feet the capture has down, shown lifted: p99', unit: 'cm', digits: 2, data: true },
  { key: 'standingHoverCm', label: 'standing: lowest foot over the ground, mean', unit: 'cm', digits: 2, target: QUALITY_TARGETS.standingHoverCm, data: true },
  { key: 'popP999', label: 'largest joint velocity change per step, p99.9', unit: 'm/s', digits: 2, data: true },
  { key: 'popMax', label: 'largest joint velocity change per step, max', unit: 'm/s', digits: 2, target: QUALITY_TARGETS.popMax, data: true },
  { key: 'stopRoot05CmPerSec', label: 'root speed 0.5 s after a stop request', unit: 'cm/s', digits: 1 },
  { key: 'stopRoot1CmPerSec', label: 'root speed 1 s after a stop request', unit: 'cm/s', digits: 2, target: QUALITY_TARGETS.stopRoot1CmPerSec },
  { key: 'stopFoot1CmPerSec', label: 'lowest foot speed 1 s after a stop request', unit: 'cm/s', digits: 2, target: QUALITY_TARGETS.stopFoot1CmPerSec },
  { key: 'facingErrorDeg', label: 'facing error against the request, mean', unit: 'deg', digits: 1, target: QUALITY_TARGETS.facingErrorDeg, data: true },
  { key: 'facingErrorP95Deg', label: 'facing error against the request, p95', unit: 'deg', digits: 1, data: true },
  { key: 'transitionsPerSec', label: 'transitions per second', unit: '/s', digits: 2, target: QUALITY_TARGETS.transitionsPerSec },
  { key: 'trajectoryError1Cm', label: '1 s trajectory error', unit: 'cm', digits: 1, target: QUALITY_TARGETS.trajectoryError1Cm },
  { key: 'searchesPerSec', label: 'searches per second', unit: '/s', digits: 1 },
  // Diagnostics: they read the controller's own contact labels and transition events.
  { key: 'labelSkateCmPerSec', label: 'skate of feet labelled in contact (diagnostic)', unit: 'cm/s', digits: 2, data: true, diagnostic: true },
  { key: 'maxTransitionJump', label: 'largest velocity change at a transition (diagnostic)', unit: 'm/s', digits: 2, diagnostic: true },
];

/**
 * The columns `motionmatch quality --terrain` adds: the skate next to the same run on flat ground
 * (terrain rows only), and as diagnostics the feet labelled in contact against the ground and
 * swinging feet against their last labelled contact (these figures are in every QualityReport; on
 * flat ground they measure against y = 0).
 */
export const TERRAIN_QUALITY_COLUMNS: readonly QualityColumn[] = [
  { key: 'skateOverFlatCmPerSec', label: 'foot skate minus the same run on flat ground', unit: 'cm/s', digits: 2, target: TERRAIN_QUALITY_TARGETS.skateOverFlatCmPerSec, terrainOnly: true },
  // Diagnostics: feet the frame labels in contact, a foot let go of and stepping after the body among
  // them (its lift is on purpose; the floor measures above judge the feet from the output). The swing
  // figure counts from the height of the foot's last labelled contact: a released foot lifted 40 cm
  // while labelled down reads as a swing 40 cm "in the ground" afterwards (depth below the ground: 0).
  { key: 'swingPenetrationMaxCm', label: 'swinging feet below their last labelled contact, max (diagnostic)', unit: 'cm', digits: 1, diagnostic: true },
  { key: 'footGroundErrorP95Cm', label: 'feet labelled in contact: distance from the ground, p95 (diagnostic)', unit: 'cm', digits: 2, terrainOnly: true, diagnostic: true },
  { key: 'footPenetrationP95Cm', label: 'feet labelled in contact: depth in the ground, p95 (diagnostic)', unit: 'cm', digits: 2, terrainOnly: true, diagnostic: true },
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

/** The data's own figure for the column (NaN where the column has none or no data level is known). */
export function columnDataValue(column: QualityColumn, data: DataLevel | null): number {
  return column.data && data !== null ? columnValue(column, data.report) : Number.NaN;
}

/**
 * The row's figure over the data's own; NaN where either is missing or the data's rounds to 0 at
 * the column's digits (a ratio to a figure below what the table shows says nothing).
 */
export function columnRatio(column: QualityColumn, report: QualityReport, data: DataLevel | null): number {
  const v = columnValue(column, report), d = columnDataValue(column, data);
  const shown = (column.percent ? 100 : 1) * d;
  return Number.isFinite(v) && Number.isFinite(d) && Math.abs(shown) >= 0.5 * 10 ** -column.digits ? v / d : Number.NaN;
}

/** true / false against the column's target (given the data's level), null when it has none or cannot be judged. */
export function columnVerdict(column: QualityColumn, report: QualityReport, data: DataLevel | null): boolean | null {
  if (!column.target) return null;
  if (column.terrainOnly && (report as QualityFigures).skateOverFlatCmPerSec === undefined) return null;
  const dataValue = column.target.kind === 'ratio' || column.target.kind === 'near' ? columnValue(column, data?.report ?? ({} as QualityReport)) : Number.NaN;
  return meetsTarget(columnValue(column, report), column.target, dataValue, targetApplies(column.target, data));
}

/** Per column with a target that can be judged: whether the report meets it. */
export function targetVerdicts(report: QualityReport, data: DataLevel | null, columns: readonly QualityColumn[] = QUALITY_COLUMNS): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const c of columns) {
    const v = columnVerdict(c, report, data);
    if (v !== null) out[c.key] = v;
  }
  return out;
}

/** A number with the column's unit: "1 cm/s", "4/s", "3%". */
export function withUnit(text: string, column: QualityColumn): string {
  return column.unit.startsWith('/') || column.unit === '%' ? `${text}${column.unit}` : `${text} ${column.unit}`;
}

/** The value as the table and chart print it ("–" when it is not a number; shares as percentages). */
export function formatColumnValue(column: QualityColumn, value: number): string {
  return Number.isFinite(value) ? (column.percent ? 100 * value : value).toFixed(column.digits) : '–';
}
