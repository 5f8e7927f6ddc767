/**
 * What a coverage cell measures, the scale each is drawn on (good .. bad), and the verdict that
 * turns a cell's figures into covered / thin / uncovered. The thresholds are set from measurements
 * on the real captures (docs/coverage.md): the bench set's forward walks and runs score below
 * `good`, its missing sidesteps and backward walks several times `bad`.
 */

export type CoverageVerdict = 'covered' | 'thin' | 'uncovered';

export interface CoverageMeasure {
  key: 'bestCost' | 'trajectoryErrorCm' | 'facingErrorDeg' | 'footSkateCmPerSec' | 'transitionsPerSec';
  label: string;
  unit: string;
  /** At or below: drawn green. At or above: drawn red. */
  good: number;
  bad: number;
  /** Digits shown. */
  digits: number;
  /** What it says, for the report's legend. */
  help: string;
}

/**
 * Trajectory positions scale with speed, so the cost of a wrong match grows with its square: a
 * cost is judged against 1 + v² (v in m/s), the cost a thin match has at that speed.
 */
export function costScale(speed: number): number {
  return 1 + speed * speed;
}

export const COVERAGE_MEASURES: readonly CoverageMeasure[] = [
  { key: 'bestCost', label: 'best match cost', unit: '', good: 1, bad: 3, digits: 2, help: 'best cost of the ideal request over the trajectory features (the search\'s units): does the data hold this motion at all. Colours judge it against 1 + v², v the speed in m/s' },
  { key: 'trajectoryErrorCm', label: 'trajectory error', unit: 'cm', good: 10, bad: 35, digits: 1, help: 'mean distance between the character and where the input drove its simulated trajectory, in a short controller run' },
  { key: 'facingErrorDeg', label: 'facing error', unit: '°', good: 10, bad: 45, digits: 1, help: 'mean angle between the character\'s facing and the requested facing in the run' },
  { key: 'footSkateCmPerSec', label: 'foot skate', unit: 'cm/s', good: 1, bad: 10, digits: 2, help: 'foot skate of the output joints over every step of the run (docs/quality.md), cm/s' },
  { key: 'transitionsPerSec', label: 'transitions', unit: '/s', good: 4, bad: 10, digits: 2, help: 'jumps to another frame per second in the run (more is visible flicker)' },
];

export function coverageMeasure(key: CoverageMeasure['key']): CoverageMeasure {
  const m = COVERAGE_MEASURES.find((x) => x.key === key);
  if (!m) throw new RangeError(`unknown coverage measure '${key}'`);
  return m;
}

/** What a cell's figure is judged (and coloured) by: the value itself, or for the cost the cost over 1 + v². */
export function judgedValue(key: CoverageMeasure['key'], cell: { speed: number } & Partial<Record<CoverageMeasure['key'], number | null>>): number | null {
  const v = cell[key];
  if (v === null || v === undefined) return null;
  return key === 'bestCost' ? v / costScale(cell.speed) : v;
}

/** A judged cost at or above this: the data has nothing like the request. */
export const UNCOVERED_COST = 3;
/** A judged cost at or above this, or a run this far off: the data has something, not enough. */
export const THIN_COST = 1;
export const THIN_TRAJECTORY_CM = 25;
export const THIN_FACING_DEG = 30;
/** A run skating this much more than the data's own (its skate over every step, plain playback) is thin, and at least THIN_SKATE_CM_PER_SEC. */
export const THIN_SKATE_CM_PER_SEC = 10;
export const THIN_SKATE_OVER_DATA = 2;

export interface VerdictInputs {
  speed: number;
  bestCost: number;
  trajectoryErrorCm: number | null;
  facingErrorDeg: number | null;
  footSkateCmPerSec: number | null;
  /** The data's own skate over every step (plain playback, cm/s): a run is judged against it (0: against THIN_SKATE_CM_PER_SEC alone). */
  dataSkateCmPerSec?: number;
}

/**
 * Uncovered when nothing in the data resembles the request (best cost >= UNCOVERED_COST × (1 + v²));
 * thin when the best match is distant (>= THIN_COST × (1 + v²)), or the controller run strays from
 * the request or skates; else covered.
 */
export function cellVerdict(c: VerdictInputs): CoverageVerdict {
  const judged = c.bestCost / costScale(c.speed);
  if (!(judged < UNCOVERED_COST)) return 'uncovered';
  if (judged >= THIN_COST) return 'thin';
  const skateLimit = Math.max(THIN_SKATE_CM_PER_SEC, THIN_SKATE_OVER_DATA * (c.dataSkateCmPerSec ?? 0));
  if ((c.trajectoryErrorCm ?? 0) >= THIN_TRAJECTORY_CM || (c.facingErrorDeg ?? 0) >= THIN_FACING_DEG || (c.footSkateCmPerSec ?? 0) >= skateLimit) return 'thin';
  return 'covered';
}
