/**
 * What `motionmatch tune` varies: the settings that trade responsiveness for quality, each mapped
 * from a unit interval (the design works in the unit cube) to its range, and a seeded Latin
 * hypercube over them. Values are rounded to three significant digits before they are evaluated,
 * so that the settings file written afterwards holds exactly what was measured.
 */
import type { Database } from '../../database/database.js';
import type { ControllerSettings, EngineSettings } from '../../sim/settings/options-file.js';

export interface TuneParameter {
  key: 'poseWeight' | 'trajectoryWeight' | 'continuingBias' | 'minRelativeGain' | 'minDwell' | 'searchInterval' | 'trajectoryHalfLife' | 'inertializationHalfLife';
  label: string;
  min: number;
  max: number;
  /** Log scale: equal steps in the unit interval are equal ratios. */
  log: boolean;
  /** The engine's default (a multiplier of 1 for the weights). */
  defaultValue: number;
  help: string;
}

export const TUNE_PARAMETERS: readonly TuneParameter[] = [
  { key: 'poseWeight', label: 'pose weight ×', min: 0.5, max: 2, log: true, defaultValue: 1, help: 'multiplies the weights of the pose groups (feet, hips)' },
  { key: 'trajectoryWeight', label: 'trajectory weight ×', min: 0.5, max: 2, log: true, defaultValue: 1, help: 'multiplies the weights of the trajectory groups' },
  { key: 'continuingBias', label: 'continuing bias', min: 0.005, max: 5, log: true, defaultValue: 0.01, help: 'cost a transition must save over continuing' },
  { key: 'minRelativeGain', label: 'minimum relative gain', min: 0.02, max: 0.4, log: true, defaultValue: 0.1, help: 'share of the continuing cost a transition must also save' },
  { key: 'minDwell', label: 'minimum dwell (s)', min: 0.05, max: 0.5, log: true, defaultValue: 0.2, help: 'seconds after a transition without regular searches' },
  { key: 'searchInterval', label: 'search interval (s)', min: 0.05, max: 0.5, log: true, defaultValue: 0.1, help: 'seconds between regular searches' },
  { key: 'trajectoryHalfLife', label: 'trajectory half-life (s)', min: 0.12, max: 0.5, log: true, defaultValue: 0.27, help: 'half-life of the trajectory and facing springs' },
  { key: 'inertializationHalfLife', label: 'inertialization half-life (s)', min: 0.05, max: 0.25, log: true, defaultValue: 0.1, help: 'half-life of the transition offsets' },
];

export type TuneValues = Record<TuneParameter['key'], number>;

/** Three significant digits. */
export function roundValue(x: number): number {
  return x === 0 ? 0 : Number(x.toPrecision(3));
}

/** A parameter's value at unit coordinate u in [0, 1]. */
export function valueAt(p: TuneParameter, u: number): number {
  const t = Math.max(0, Math.min(1, u));
  return roundValue(p.log ? p.min * (p.max / p.min) ** t : p.min + (p.max - p.min) * t);
}

/** The unit coordinate of a value (inverse of valueAt before rounding). */
export function unitOf(p: TuneParameter, v: number): number {
  const t = p.log ? Math.log(v / p.min) / Math.log(p.max / p.min) : (v - p.min) / (p.max - p.min);
  return Math.max(0, Math.min(1, t));
}

export function valuesAt(u: readonly number[]): TuneValues {
  const out = {} as TuneValues;
  TUNE_PARAMETERS.forEach((p, i) => { out[p.key] = valueAt(p, u[i]); });
  return out;
}

export function defaultValues(): TuneValues {
  const out = {} as TuneValues;
  for (const p of TUNE_PARAMETERS) out[p.key] = p.defaultValue;
  return out;
}

export function unitsOf(v: TuneValues): number[] {
  return TUNE_PARAMETERS.map((p) => unitOf(p, v[p.key]));
}

/** The swept controller options (every parameter but the two weight multipliers). */
const CONTROLLER_KEYS = ['continuingBias', 'minRelativeGain', 'minDwell', 'searchInterval', 'trajectoryHalfLife', 'inertializationHalfLife'] as const;

/**
 * The point a settings file's controller options stand at (`tune --options FILE`: the sweep starts
 * there instead of at the engine defaults): the defaults, with each swept option the file sets. The
 * weights of the file are applied to the database beforehand, so its weight multipliers are 1.
 * Throws a RangeError naming the option when a value lies outside what tune sweeps, or when the file
 * gives the facing spring a half-life of its own (the sweep ties it to the trajectory's).
 */
export function baselineValues(controller: ControllerSettings): TuneValues {
  const out = defaultValues();
  for (const key of CONTROLLER_KEYS) {
    const v = controller[key];
    if (v === undefined) continue;
    const p = TUNE_PARAMETERS.find((x) => x.key === key)!;
    if (!(v >= p.min && v <= p.max)) throw new RangeError(`controller option ${key} ${v} is outside what tune sweeps (${p.min} to ${p.max})`);
    out[key] = v;
  }
  const facing = controller.facingHalfLife;
  if (facing !== undefined && facing !== out.trajectoryHalfLife) throw new RangeError(`facingHalfLife ${facing} differs from trajectoryHalfLife ${out.trajectoryHalfLife}: tune sweeps them as one half-life`);
  return out;
}

/** Whether a schema group is part of the trajectory (the rest describe the pose). */
function isTrajectoryGroup(kind: string): boolean {
  return kind === 'trajectoryPosition' || kind === 'trajectoryDirection';
}

/**
 * The engine settings of a point: controller options, and the database's own group weights times
 * the pose / trajectory multipliers (facing follows the trajectory half-life).
 */
export function settingsOf(db: Database, v: TuneValues, comment?: string, baseController: ControllerSettings = {}): EngineSettings {
  const schemaWeights: Record<string, number> = {};
  for (const g of db.schema.groups) schemaWeights[g.name] = roundValue(g.weight * (isTrajectoryGroup(g.kind) ? v.trajectoryWeight : v.poseWeight));
  return {
    ...(comment !== undefined ? { comment } : {}),
    controller: {
      // Options a settings file set and the sweep leaves alone (foot IK, ...) pass through.
      ...baseController,
      continuingBias: v.continuingBias,
      minRelativeGain: v.minRelativeGain,
      minDwell: v.minDwell,
      searchInterval: v.searchInterval,
      trajectoryHalfLife: v.trajectoryHalfLife,
      facingHalfLife: v.trajectoryHalfLife,
      inertializationHalfLife: v.inertializationHalfLife,
    },
    schemaWeights,
  };
}

/**
 * A Latin hypercube of n points in the unit cube of `dims` dimensions: every dimension's n strata
 * hold one point each, at a random place in the stratum. `random` is a seeded generator.
 */
export function latinHypercube(n: number, dims: number, random: () => number): number[][] {
  const points = Array.from({ length: n }, () => new Array<number>(dims).fill(0));
  for (let d = 0; d < dims; d++) {
    const strata = Array.from({ length: n }, (_, i) => i);
    // Fisher-Yates with the seeded generator.
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [strata[i], strata[j]] = [strata[j], strata[i]];
    }
    for (let i = 0; i < n; i++) points[i][d] = (strata[i] + random()) / n;
  }
  return points;
}

/** Key of a point's rounded values (two points with the same key are the same settings). */
export function valuesKey(v: TuneValues): string {
  return TUNE_PARAMETERS.map((p) => v[p.key]).join(',');
}
