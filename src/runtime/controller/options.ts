/**
 * What a motion matching controller is asked each step (ControllerInput) and how it behaves
 * (ControllerOptions): defaults, validation, and the resolved options object a crowd shares.
 */
import { type FootIKOptions, DEFAULT_FOOT_IK_OPTIONS, validateFootIKOptions } from '../foot-ik/foot-ik.js';
import { type Ground, validateGround } from '../ground/ground.js';
import { type GroundOptions, DEFAULT_GROUND_OPTIONS, validateGroundOptions } from '../ground/ground-options.js';
import { CONTROLLER_SETTING_RANGES, OptionRangeError, inRange } from './option-ranges.js';
import { refuseUnknownOptions } from '../../util/option-keys.js';
import { requireOptionsObject } from '../../util/arguments.js';

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
  /**
   * Local searches: seconds between full searches; the regular searches in between scan only a window
   * of ±localSearchSeconds of animation around the playing frame and the playing clip's neighbouring
   * clips (runtime/lod/local-search.ts, the windowed kernel), a fraction of a full search's work.
   * Searches forced by a sharp input change, a clip's end or the first step, and tag-filtered ones,
   * are always full. 0 (default): every search is full. Levels of detail set their own (docs/lod.md).
   */
  fullSearchInterval: number;
  /** Half-width of a local search's window around the playing frame (s of animation). */
  localSearchSeconds: number;
  /** Half-life of the trajectory spring (position) and the facing spring (s). */
  trajectoryHalfLife: number;
  facingHalfLife: number;
  /** Half-life of inertialization offsets (s). */
  inertializationHalfLife: number;
  /** Cost a transition must save over continuing (normalised units). */
  continuingBias: number;
  /**
   * Fraction of the continuing cost a transition must also save (UE5 Pose Search's minimum percent
   * improvement): a gain that small is within what the continuing clip's own cost varies by over a
   * step, and switching for it flickers. 0 = off.
   */
  minRelativeGain: number;
  /**
   * Seconds after a transition during which regular (timer) searches are skipped: the transition's
   * inertialization is still settling and the new clip has not had a step to show itself. Searches
   * forced by a sharp input change or the clip's end still happen, and so do regular searches
   * while the input asks to stand on a database with standing frames (a stop is not held back).
   * 0 = off.
   */
  minDwell: number;
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
  /**
   * Which side gives way when the gap between character and simulation exceeds the clamp:
   * 'character' drags the character to within the clamp of the simulation (tracking stays bounded;
   * what is dragged slides, planted feet held by the foot IK as long as the legs reach), 'simulation'
   * pulls the simulation back to within the clamp of the character (the character moves only by its
   * animation, so nothing slides, but where the data has no motion for a request the character
   * falls behind without bound: 79 cm on data without strafes). Measured on the shared captures,
   * with foot IK and orientation warping both meet every target; 'character' tracks 0.4-0.6 cm
   * closer for 0.1-0.15 cm/s more skate, and keeps tracking bounded on data that lacks a motion.
   */
  clampMoves: 'character' | 'simulation';
  /**
   * Orientation warping, for requests the data has no motion for: when the database has nothing
   * that travels at the requested angle to its facing (a sidestep, from data without sidesteps),
   * the legs face so that the nearest motion it has travels the requested way and the upper body
   * turns towards the requested facing, by at most this angle (radians). 0 = off: the search gets
   * the requested facing as it is.
   */
  orientationWarp: number;
  /** Foot locking and two-bone IK. */
  footIK: boolean;
  footIKOptions: FootIKOptions;
  /** Apply inertialization (off = hard switches, for comparison). */
  inertialization: boolean;
  /**
   * Where a transition's change of root velocity goes. 'pose': the root takes the new clip's motion
   * at once and the difference goes into the inertialization offset of the joint carrying the body
   * (the hips), so the body's world velocity stays continuous and the new clip's planted feet move
   * only as the clip moves them. 'root': the root keeps the old clip's velocity as a decaying offset
   * (for ~0.15 s it follows neither clip, and the new clip's planted feet glide: measured ~14 cm per
   * 1 m/s of change). 'off': dropped (a velocity step, for comparison).
   */
  rootVelocityInertialization: 'pose' | 'root' | 'off';
  /** Collision / boundary hook: adjust the proposed world position in place (x, y, z). */
  constrain: ((position: Float64Array) => void) | null;
  /** Frame to start on (default: the first search candidate). */
  startFrame: number;
  /**
   * The ground the character walks on (docs/terrain.md): a HeightField, groundFromFunctions({ height,
   * normal }), or any object with sample(at, out) (e.g. a ray cast into the application's scene).
   * null (default): the plane y = 0, with results bit-identical to a runtime without ground support.
   * With a ground the root's height follows it (a spring over steps), planted feet stand on it tilted
   * towards its normal, the hips drop as far as the lower leg needs, swinging feet clear it.
   */
  ground: Ground | null;
  /** How the character adapts to the ground (used only with a ground). */
  groundOptions: GroundOptions;
}

/**
 * What MotionMatchingController.setLevel reads from a level of detail: its pose rate and search
 * pattern (runtime/lod/levels.ts's LodLevel extends it; declared here so that the controller does not
 * import lod/, which imports the controller).
 */
export interface ControllerLevel {
  /** Seconds between full searches: regular searches in between are local (0 or <= searchInterval: every search is full). */
  fullSearchInterval: number;
  /** Half-width of a local search's window around the playing frame (s of animation). */
  localSeconds: number;
  /** The pose (inertialization, forward kinematics, foot IK) is updated every this many steps. */
  poseEvery: number;
}

export const DEFAULT_CONTROLLER_OPTIONS: ControllerOptions = {
  searchInterval: 0.1,
  fullSearchInterval: 0,
  localSearchSeconds: 1,
  trajectoryHalfLife: 0.27,
  facingHalfLife: 0.27,
  inertializationHalfLife: 0.1,
  continuingBias: 0.01,
  // Measured on real captures: with both rules, 4.7 -> 3.0 transitions/s at equal tracking; no gain
  // below 10% of the continuing cost is worth a switch, and 0.2 s lets a transition settle.
  minRelativeGain: 0.1,
  minDwell: 0.2,
  sameClipWindow: 0.33,
  sharpVelocityChange: 1.0,
  sharpFacingChange: 0.6,
  blendMode: 'inertialize',
  crossfadeTime: 0.2,
  // Off: a clip played 14% faster shows its feet near the ground moving 14% faster, and its frames
  // match the query less well (measured on the shared captures' bench set, a straight 1.4 m/s walk:
  // skate 29.7 -> 41.7 cm/s, transitions 1.9 -> 3.0/s); the root's adjustment, with the feet on the
  // ground held by foot IK, follows the requested speed without it.
  timeWarpMin: 1,
  timeWarpMax: 1,
  adjustPositionHalfLife: 0.1,
  adjustRotationHalfLife: 0.2,
  // Up to the animation's own speed: the feet on the ground are held by foot IK (planted ones
  // locked, free ones moving as the capture's: foot-ik.ts), so a stronger pull does not slide them.
  // Measured on the built-in strafes (1.0-1.2 m/s clips, 0.8-1.2 m/s asked): trajectory error
  // 12.0 -> 6.8 cm at 0.5, skate unchanged.
  adjustMaxRatio: 1,
  // A loose clamp: measured on sharp U-turns, 0.15 m drags planted feet out of reach (3 cm/s skate),
  // 0.5 m keeps them planted (0.8 cm/s) for 1 cm more trajectory error.
  clampDistance: 0.5,
  clampAngle: 0.5 * Math.PI,
  clampMoves: 'character',
  orientationWarp: Math.PI / 3,
  footIK: true,
  footIKOptions: DEFAULT_FOOT_IK_OPTIONS,
  inertialization: true,
  rootVelocityInertialization: 'pose',
  constrain: null,
  startFrame: -1,
  ground: null,
  groundOptions: DEFAULT_GROUND_OPTIONS,
};


/** What resolveControllerOptions takes: any of the options; the foot IK and ground groups also in part (the rest of a group from its defaults). */
export type ControllerOptionsInput = Partial<Omit<ControllerOptions, 'footIKOptions' | 'groundOptions'>> & {
  footIKOptions?: Partial<FootIKOptions>;
  groundOptions?: Partial<GroundOptions>;
};

/** Options objects made by resolveControllerOptions (shared as they are by the controllers given them). */
const resolvedOptions = new WeakSet<object>();

/**
 * Defaults filled in and validated. Controllers given the returned object share it instead of
 * copying it: a crowd passes one object to every character (one copy in cache, not thousands),
 * and a change to one of its fields applies to all of them.
 */
export function resolveControllerOptions(options: ControllerOptionsInput = {}): ControllerOptions {
  if (resolvedOptions.has(options)) return options as ControllerOptions;
  requireOptionsObject(options, 'MotionMatchingController', 'options');
  // A misspelt option would otherwise be ignored without a word (JavaScript callers have no type check).
  refuseUnknownOptions(options, DEFAULT_CONTROLLER_OPTIONS, 'controller option ');
  if (options.footIKOptions) refuseUnknownOptions(options.footIKOptions, DEFAULT_FOOT_IK_OPTIONS, 'foot IK option ');
  if (options.groundOptions) refuseUnknownOptions(options.groundOptions, DEFAULT_GROUND_OPTIONS, 'ground option ');
  // The two groups are filled in too: { footIKOptions: { maxHipsDrop: 0.1 } } was taken as the
  // whole group, and refused for an option it did not name ("unlockLegLengths … got undefined").
  const resolved: ControllerOptions = {
    ...DEFAULT_CONTROLLER_OPTIONS, ...options,
    footIKOptions: { ...DEFAULT_FOOT_IK_OPTIONS, ...options.footIKOptions },
    groundOptions: { ...DEFAULT_GROUND_OPTIONS, ...options.groundOptions },
  } as ControllerOptions;
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
  const nonNegative = ['fullSearchInterval', 'localSearchSeconds', 'continuingBias', 'minRelativeGain', 'minDwell', 'sameClipWindow', 'sharpVelocityChange', 'sharpFacingChange', 'adjustPositionHalfLife', 'adjustRotationHalfLife', 'adjustMaxRatio', 'orientationWarp'] as const;
  for (const k of nonNegative) {
    if (!(Number.isFinite(o[k]) && o[k] >= 0)) throw new RangeError(`controller option ${k} must be a finite number >= 0, got ${o[k]}`);
  }
  if (!(o.timeWarpMin > 0 && o.timeWarpMin <= 1 && o.timeWarpMax >= 1 && Number.isFinite(o.timeWarpMax))) {
    throw new RangeError(`time warp bounds must satisfy 0 < timeWarpMin <= 1 <= timeWarpMax, got [${o.timeWarpMin}, ${o.timeWarpMax}]`);
  }
  if (o.blendMode !== 'inertialize' && o.blendMode !== 'crossfade') throw new RangeError(`blendMode must be 'inertialize' or 'crossfade', got ${String(o.blendMode)}`);
  if (!(o.minRelativeGain < 1)) throw new RangeError(`controller option minRelativeGain must be below 1 (a fraction of the continuing cost), got ${o.minRelativeGain}`);
  if (o.clampMoves !== 'simulation' && o.clampMoves !== 'character') throw new RangeError(`clampMoves must be 'simulation' or 'character', got ${String(o.clampMoves)}`);
  if (o.rootVelocityInertialization !== 'pose' && o.rootVelocityInertialization !== 'root' && o.rootVelocityInertialization !== 'off') {
    throw new RangeError(`rootVelocityInertialization must be 'pose', 'root' or 'off', got ${String(o.rootVelocityInertialization)}`);
  }
  if (!(Number.isInteger(o.startFrame) && o.startFrame >= -1)) throw new RangeError(`controller option startFrame must be -1 (the first candidate) or a frame index, got ${o.startFrame}`);
  if (o.constrain !== null && typeof o.constrain !== 'function') throw new RangeError('controller option constrain must be a function or null');
  for (const k of ['footIK', 'inertialization'] as const) if (typeof o[k] !== 'boolean') throw new RangeError(`controller option ${k} must be true or false, got ${String(o[k])}`);
  validateFootIKOptions(o.footIKOptions);
  validateGround(o.ground);
  validateGroundOptions(o.groundOptions);
  checkOptionRanges(o);
}

/**
 * Every half-life within its range (option-ranges.ts), after the checks above (whose messages stay
 * as they are): 1e300 or 1e-300 s is finite and > 0, passes them, and then turns every spring into
 * NaN at the first step. The other ranges are a settings file's (sim/settings): in the library a
 * search interval of 1000 s or a clamp of 1e9 m are how a caller switches them off.
 */
/** Options whose range the library checks too (beside the half-lives): a window of 1e9 s would scan the whole database as a "local" search. */
const LIBRARY_RANGES = new Set(['fullSearchInterval', 'localSearchSeconds']);

function checkOptionRanges(o: ControllerOptions): void {
  const groups: Record<string, object> = { '': o, 'footIKOptions.': o.footIKOptions, 'groundOptions.': o.groundOptions };
  for (const [key, range] of Object.entries(CONTROLLER_SETTING_RANGES)) {
    if (!key.endsWith('HalfLife') && !LIBRARY_RANGES.has(key)) continue;
    const dot = key.indexOf('.'), prefix = dot < 0 ? '' : key.slice(0, dot + 1), name = key.slice(dot + 1);
    const v = (groups[prefix] as Record<string, unknown>)[name];
    if (typeof v === 'number' && !inRange(v, range)) throw new OptionRangeError(key, range, v);
  }
}
