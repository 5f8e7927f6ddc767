/**
 * The physically meaningful range of every numeric controller option (the library's options and a
 * settings file's, `--options FILE`, docs/tuning.md). A half-life of 1e300 or 1e-300 s is finite and
 * > 0, and turned every spring into NaN ("bestCost is NaN" at every step). The settings reader checks
 * every range; validateControllerOptions (options.ts) the half-lives' (in the library a search
 * interval of 1000 s or a clamp of 1e9 m switch those behaviours off). They hold every default and
 * everything `tune` sweeps.
 * Keys are paths below "controller" ("footIKOptions.blendHalfLife").
 */

export interface SettingRange {
  min: number;
  max: number;
  /** Words after the range: "seconds", "m/s", "radians". */
  unit?: string;
  /** Whole numbers only. */
  integer?: boolean;
  /** 0 is also accepted (it switches the option off), below `min`. */
  zeroOff?: boolean;
}

/** An option outside its range: which (a path below "controller"), the range, the value given. */
export class OptionRangeError extends RangeError {
  constructor(readonly key: string, readonly range: SettingRange, readonly value: number) {
    super(`controller option ${key} must be ${rangeText(range)}, got ${value}`);
    this.name = 'OptionRangeError';
  }
}

/** Half-lives and other spans of time (s): 1 ms to 10 s. */
const SECONDS = { min: 1e-3, max: 10, unit: 'seconds' } as const;

export const CONTROLLER_SETTING_RANGES: Readonly<Record<string, SettingRange>> = {
  searchInterval: SECONDS,
  fullSearchInterval: { min: 0, max: 60, unit: 'seconds (0: every search is full)' },
  localSearchSeconds: { min: 0, max: 60, unit: 'seconds' },
  trajectoryHalfLife: SECONDS,
  facingHalfLife: SECONDS,
  inertializationHalfLife: SECONDS,
  continuingBias: { min: 0, max: 1000, unit: '(normalised cost)' },
  minRelativeGain: { min: 0, max: 0.99, unit: '(a fraction of the continuing cost)' },
  minDwell: { min: 0, max: 10, unit: 'seconds' },
  sameClipWindow: { min: 0, max: 10, unit: 'seconds' },
  sharpVelocityChange: { min: 0, max: 100, unit: 'm/s' },
  sharpFacingChange: { min: 0, max: 2 * Math.PI, unit: 'radians' },
  crossfadeTime: SECONDS,
  timeWarpMin: { min: 0.1, max: 1, unit: '(play rate)' },
  timeWarpMax: { min: 1, max: 10, unit: '(play rate)' },
  adjustPositionHalfLife: { ...SECONDS, zeroOff: true },
  adjustRotationHalfLife: { ...SECONDS, zeroOff: true },
  adjustMaxRatio: { min: 0, max: 10, unit: '(of the root-motion speed)' },
  clampDistance: { min: 1e-3, max: 100, unit: 'metres' },
  clampAngle: { min: 1e-3, max: 2 * Math.PI, unit: 'radians' },
  orientationWarp: { min: 0, max: Math.PI, unit: 'radians' },
  startFrame: { min: -1, max: 2 ** 31 - 1, integer: true, unit: '(-1: the first search candidate)' },
  'footIKOptions.unlockLegLengths': { min: 0.01, max: 10, unit: 'leg lengths' },
  'footIKOptions.blendHalfLife': SECONDS,
  'footIKOptions.maxHipsDrop': { min: 0, max: 2, unit: 'metres' },
  'footIKOptions.hipsDropSpeed': { min: 0, max: 100, unit: 'm/s' },
  'groundOptions.rootHalfLife': SECONDS,
  'groundOptions.followSlope': { min: 0, max: 1.57, unit: 'radians' },
  'groundOptions.maxFootTilt': { min: 0, max: Math.PI / 2, unit: 'radians' },
  'groundOptions.footHalfLife': SECONDS,
  'groundOptions.swingLookAhead': { min: 0, max: 1, unit: 'seconds' },
  'groundOptions.maxHipsDropLegLengths': { min: 0, max: 1, unit: 'leg lengths' },
};

/** A bound as a message writes it: 0.001, 10, π, 2π, π/2. */
function boundText(x: number): string {
  if (x === Math.PI) return 'π';
  if (x === 2 * Math.PI) return '2π';
  if (x === Math.PI / 2) return 'π/2';
  return x !== 0 && Math.abs(x) < 1e-3 ? x.toFixed(Math.ceil(-Math.log10(Math.abs(x)))) : String(x);
}

/** "in [0.001, 10] seconds", "0 (off) or in [0.001, 10] seconds", "an integer in [-1, 2147483647]". */
export function rangeText(r: SettingRange): string {
  const span = `${r.integer ? 'an integer ' : ''}in [${boundText(r.min)}, ${boundText(r.max)}]${r.unit ? ` ${r.unit}` : ''}`;
  return r.zeroOff ? `0 (off) or ${span}` : span;
}

/** Whether `v` lies in `r`. */
export function inRange(v: number, r: SettingRange): boolean {
  if (r.zeroOff && v === 0) return true;
  return v >= r.min && v <= r.max && (!r.integer || Number.isInteger(v));
}
