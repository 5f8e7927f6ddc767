/**
 * What a motion matching controller is asked each step (ControllerInput) and how it behaves
 * (ControllerOptions): defaults, validation, and the resolved options object a crowd shares.
 */
import { type FootIKOptions, DEFAULT_FOOT_IK_OPTIONS } from './foot-ik.js';

/** What the player or an agent asks for this step. Reuse one object; nothing here is retained. */
export interface ControllerInput {
  /** Desired velocity in world space (m/s), x and z. */
  velocityX: number;
  velocityZ: number;
  /** Desired facing (yaw, radians: atan2(x, z)); NaN = face the direction of travel. */
  facing: number;
  /** Restrict the next searches to frames carrying all of these tags (null = any). */
  requireTags: readonly string[] | null;
  /** Never match frames with any of these tags (null = none). */
  excludeTags: readonly string[] | null;
}

export function createInput(): ControllerInput {
  return { velocityX: 0, velocityZ: 0, facing: Number.NaN, requireTags: null, excludeTags: null };
}

export interface ControllerOptions {
  /** Seconds between regular searches (~0.1 s: often enough to follow input, rarely enough to keep clips playing). */
  searchInterval: number;
  /** Half-life of the trajectory spring (position) and the facing spring (s). */
  trajectoryHalfLife: number;
  facingHalfLife: number;
  /** Half-life of inertialization offsets (s). */
  inertializationHalfLife: number;
  /** Cost a transition must save over continuing (normalised units). */
  continuingBias: number;
  /** Results within this many seconds of the playing frame in the same clip are not transitions. */
  sameClipWindow: number;
  /** Search at once when the desired velocity changes by more than this (m/s) between steps... */
  sharpVelocityChange: number;
  /** ...or the desired facing by more than this (radians). */
  sharpFacingChange: number;
  /** 'inertialize' switches at once and decays the difference; 'crossfade' blends clips over `crossfadeTime`. */
  blendMode: 'inertialize' | 'crossfade';
  crossfadeTime: number;
  /** Play-rate adjustment towards the desired speed, within [min, max] (1, 1 = off). */
  timeWarpMin: number;
  timeWarpMax: number;
  /** Pull the character towards the simulated trajectory (half-lives, s) and clamp the gap (m, rad). */
  adjustPositionHalfLife: number;
  adjustRotationHalfLife: number;
  /** Largest adjustment as a fraction of the root-motion speed, so a character never slides in place. */
  adjustMaxRatio: number;
  clampDistance: number;
  clampAngle: number;
  /** Foot locking and two-bone IK. */
  footIK: boolean;
  footIKOptions: FootIKOptions;
  /** Apply inertialization (off = hard switches, for comparison). */
  inertialization: boolean;
  /** Collision / boundary hook: adjust the proposed world position in place (x, y, z). */
  constrain: ((position: Float64Array) => void) | null;
  /** Frame to start on (default: the first search candidate). */
  startFrame: number;
}

export const DEFAULT_CONTROLLER_OPTIONS: ControllerOptions = {
  searchInterval: 0.1,
  trajectoryHalfLife: 0.27,
  facingHalfLife: 0.27,
  inertializationHalfLife: 0.1,
  continuingBias: 0.01,
  sameClipWindow: 0.33,
  sharpVelocityChange: 1.0,
  sharpFacingChange: 0.6,
  blendMode: 'inertialize',
  crossfadeTime: 0.2,
  timeWarpMin: 1,
  timeWarpMax: 1,
  adjustPositionHalfLife: 0.1,
  adjustRotationHalfLife: 0.2,
  adjustMaxRatio: 0.5,
  // A loose clamp: measured on sharp U-turns, 0.15 m drags planted feet out of reach (3 cm/s skate),
  // 0.5 m keeps them planted (0.8 cm/s) for 1 cm more trajectory error.
  clampDistance: 0.5,
  clampAngle: 0.5 * Math.PI,
  footIK: true,
  footIKOptions: DEFAULT_FOOT_IK_OPTIONS,
  inertialization: true,
  constrain: null,
  startFrame: -1,
};


/** Options objects made by resolveControllerOptions (shared as they are by the controllers given them). */
const resolvedOptions = new WeakSet<object>();

/**
 * Defaults filled in and validated. Controllers given the returned object share it instead of
 * copying it: a crowd passes one object to every character (one copy in cache, not thousands),
 * and a change to one of its fields applies to all of them.
 */
export function resolveControllerOptions(options: Partial<ControllerOptions> = {}): ControllerOptions {
  if (resolvedOptions.has(options)) return options as ControllerOptions;
  const resolved = { ...DEFAULT_CONTROLLER_OPTIONS, ...options };
  validateControllerOptions(resolved);
  resolvedOptions.add(resolved);
  return resolved;
}

/** Throws RangeError naming the first option outside its range. */
export function validateControllerOptions(o: ControllerOptions): void {
  const positive = ['searchInterval', 'trajectoryHalfLife', 'facingHalfLife', 'inertializationHalfLife', 'crossfadeTime', 'clampDistance', 'clampAngle'] as const;
  for (const k of positive) {
    if (!(Number.isFinite(o[k]) && o[k] > 0)) throw new RangeError(`controller option ${k} must be a finite number > 0, got ${o[k]}`);
  }
  const nonNegative = ['continuingBias', 'sameClipWindow', 'sharpVelocityChange', 'sharpFacingChange', 'adjustPositionHalfLife', 'adjustRotationHalfLife', 'adjustMaxRatio'] as const;
  for (const k of nonNegative) {
    if (!(Number.isFinite(o[k]) && o[k] >= 0)) throw new RangeError(`controller option ${k} must be a finite number >= 0, got ${o[k]}`);
  }
  if (!(o.timeWarpMin > 0 && o.timeWarpMin <= 1 && o.timeWarpMax >= 1 && Number.isFinite(o.timeWarpMax))) {
    throw new RangeError(`time warp bounds must satisfy 0 < timeWarpMin <= 1 <= timeWarpMax, got [${o.timeWarpMin}, ${o.timeWarpMax}]`);
  }
  if (o.blendMode !== 'inertialize' && o.blendMode !== 'crossfade') throw new RangeError(`blendMode must be 'inertialize' or 'crossfade', got ${String(o.blendMode)}`);
}
