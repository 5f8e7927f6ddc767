/**
 * Level of detail for crowds (docs/lod.md): a table of levels, from full detail (level 0) to the
 * cheapest, and the choice of a character's level from its distance to the camera (divided by an
 * importance the application sets), with hysteresis so that a character standing on a boundary
 * does not flicker between two levels.
 *
 * A level changes what a step does, never what the data is:
 * - how often a regular search runs (`searchInterval`), and how often one of them is a full search
 *   (`fullSearchInterval`); the searches in between are local: a windowed scan of ±`localSeconds`
 *   around the playing frame and of the playing clip's neighbouring clips (lod/local-search.ts);
 * - foot IK on or off;
 * - inertialization: on with its half-life, or off (a transition then cuts);
 * - how often the pose is updated (`poseEvery` steps: the inertialized pose, forward kinematics and
 *   foot IK; root motion and the trajectory still step every step).
 * Level 0 changes nothing: a controller at level 0 is bit-identical to one without levels (tested).
 */
import type { ControllerLevel, ControllerOptions } from '../controller/options.js';

export interface LodLevel extends ControllerLevel {
  /** The level is used while the (importance-scaled) camera distance is below this (m); the last level's is Infinity. */
  maxDistance: number;
  /** Seconds between regular searches. */
  searchInterval: number;
  /** Seconds between full searches: regular searches in between are local (0 or <= searchInterval: every search is full). */
  fullSearchInterval: number;
  /** Half-width of a local search's window around the playing frame (s of animation). */
  localSeconds: number;
  footIK: boolean;
  inertialization: boolean;
  inertializationHalfLife: number;
  /** The pose (inertialization, forward kinematics, foot IK) is updated every this many steps. */
  poseEvery: number;
}

/**
 * Default levels. Distances suit a camera at human height with a 60° field of view: beyond ~15 m a
 * character is under ~100 px tall on a 1080p screen, beyond 80 m a few pixels.
 * Level 0 takes its searchInterval, foot IK and inertialization from the crowd's options.
 */
export const DEFAULT_LOD_LEVELS: readonly LodLevel[] = [
  { maxDistance: 15, searchInterval: 0.1, fullSearchInterval: 0, localSeconds: 0, footIK: true, inertialization: true, inertializationHalfLife: 0.1, poseEvery: 1 },
  { maxDistance: 40, searchInterval: 0.2, fullSearchInterval: 0.4, localSeconds: 1, footIK: true, inertialization: true, inertializationHalfLife: 0.1, poseEvery: 1 },
  { maxDistance: 80, searchInterval: 0.3, fullSearchInterval: 0.9, localSeconds: 1, footIK: false, inertialization: true, inertializationHalfLife: 0.05, poseEvery: 2 },
  { maxDistance: Infinity, searchInterval: 0.4, fullSearchInterval: 1.2, localSeconds: 1, footIK: false, inertialization: false, inertializationHalfLife: 0.05, poseEvery: 4 },
];

/** Hysteresis (m): a character moves to a coarser level only this far beyond a boundary, and back only this far inside it. */
export const DEFAULT_LOD_HYSTERESIS = 2;

/** Largest number of levels (per-level counters are kept in small fixed arrays). */
export const MAX_LOD_LEVELS = 8;

/** Throws a one-line RangeError unless `levels` is a usable table (ascending distances, the last Infinity). */
export function validateLodLevels(levels: readonly LodLevel[], hysteresis: number): void {
  if (!(levels.length >= 1 && levels.length <= MAX_LOD_LEVELS)) throw new RangeError(`LOD: 1 to ${MAX_LOD_LEVELS} levels, got ${levels.length}`);
  if (!(Number.isFinite(hysteresis) && hysteresis >= 0)) throw new RangeError(`LOD: hysteresis must be a finite distance >= 0 m, got ${hysteresis}`);
  let prev = 0;
  levels.forEach((l, i) => {
    const name = `LOD level ${i}`;
    if (!(l.maxDistance > prev)) throw new RangeError(`${name}: maxDistance must be above the previous level's (${prev} m), got ${l.maxDistance}`);
    if (i < levels.length - 1 && !(l.maxDistance - hysteresis > prev + hysteresis)) throw new RangeError(`${name}: maxDistance ${l.maxDistance} m leaves no room for the hysteresis (${hysteresis} m) above ${prev} m`);
    if (i === levels.length - 1 && l.maxDistance !== Infinity) throw new RangeError(`${name}: the last level must reach Infinity, got ${l.maxDistance}`);
    if (!(l.searchInterval > 0 && l.searchInterval <= 10)) throw new RangeError(`${name}: searchInterval must be in (0, 10] s, got ${l.searchInterval}`);
    if (!(l.fullSearchInterval >= 0 && l.fullSearchInterval <= 60)) throw new RangeError(`${name}: fullSearchInterval must be in [0, 60] s, got ${l.fullSearchInterval}`);
    if (!(l.localSeconds >= 0 && l.localSeconds <= 60)) throw new RangeError(`${name}: localSeconds must be in [0, 60] s, got ${l.localSeconds}`);
    if (!(Number.isInteger(l.poseEvery) && l.poseEvery >= 1 && l.poseEvery <= 60)) throw new RangeError(`${name}: poseEvery must be an integer in [1, 60], got ${l.poseEvery}`);
    if (!(l.inertializationHalfLife > 0 && l.inertializationHalfLife <= 10)) throw new RangeError(`${name}: inertializationHalfLife must be in (0, 10] s, got ${l.inertializationHalfLife}`);
    prev = l.maxDistance;
  });
}

/**
 * The level for `distance` (m, already divided by the character's importance) given the `current`
 * level: coarser only beyond the current level's boundary + hysteresis, finer only inside the finer
 * level's boundary − hysteresis. Between the two the level stays, so a character pacing along a
 * boundary changes level at most once per crossing of the 2·hysteresis band.
 */
export function selectLodLevel(levels: readonly LodLevel[], current: number, distance: number, hysteresis: number): number {
  let l = current;
  while (l < levels.length - 1 && distance > levels[l].maxDistance + hysteresis) l++;
  while (l > 0 && distance < levels[l - 1].maxDistance - hysteresis) l--;
  return l;
}

/** The level for `distance` with no history (a character's first frame): the plain table lookup. */
export function initialLodLevel(levels: readonly LodLevel[], distance: number): number {
  let l = 0;
  while (l < levels.length - 1 && distance >= levels[l].maxDistance) l++;
  return l;
}

/**
 * The distance a level is chosen by: the camera distance divided by the importance (default 1;
 * importance 2 keeps a character at full detail twice as far; 0 sends it to the coarsest level).
 */
export function lodDistance(distance: number, importance: number): number {
  return importance > 0 ? distance / importance : Infinity;
}

/**
 * The controller options of each level, derived from the crowd's `base` options (level 0 is `base`
 * itself, the same object, so level 0 runs exactly the code and numbers it ran without levels).
 */
export function levelOptions(base: ControllerOptions, levels: readonly LodLevel[]): ControllerOptions[] {
  return levels.map((l, i) => i === 0 ? base : {
    ...base,
    searchInterval: l.searchInterval,
    footIK: base.footIK && l.footIK,
    inertialization: base.inertialization && l.inertialization,
    inertializationHalfLife: l.inertializationHalfLife,
  });
}
