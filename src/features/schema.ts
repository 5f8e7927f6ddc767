/**
 * Feature schema: which values make up a frame's feature vector, grouped for normalisation.
 * Everything is expressed in the character's root frame (root = hips projected to the ground,
 * facing = the hips' forward axis projected to the ground, smoothed).
 */
import type { Skeleton } from '../anim/skeleton.js';

export type BoneRole = 'hips' | 'leftFoot' | 'rightFoot' | 'leftToe' | 'rightToe';

export type FeatureGroupKind =
  /** Position of each listed bone relative to the root, 3 values per bone. */
  | 'bonePosition'
  /** Velocity of each listed bone in the root frame, 3 values per bone. */
  | 'boneVelocity'
  /** Future (or past, negative offset) root positions (x, z) in the current root frame, 2 per offset. */
  | 'trajectoryPosition'
  /** Future (or past) facing directions (x, z) in the current root frame, 2 per offset. */
  | 'trajectoryDirection';

export interface FeatureGroup {
  name: string;
  kind: FeatureGroupKind;
  /** Bone roles or joint names, for bone kinds. */
  bones?: string[];
  /** Time offsets in seconds, for trajectory kinds. */
  offsets?: number[];
  weight: number;
}

export interface FeatureSchema {
  groups: FeatureGroup[];
  /** Frames within this many seconds of a clip's end are not search candidates (endMarginFrames). */
  endMarginSeconds: number;
  /** Half-width (seconds) of the Savitzky-Golay window smoothing the root's facing direction. */
  facingSmoothingSeconds: number;
  /** Half-width (seconds) of the window smoothing the root's ground position (default: facingSmoothingSeconds). */
  positionSmoothingSeconds?: number;
}

export const DEFAULT_SCHEMA: FeatureSchema = {
  groups: [
    { name: 'footPosition', kind: 'bonePosition', bones: ['leftFoot', 'rightFoot'], weight: 0.75 },
    { name: 'footVelocity', kind: 'boneVelocity', bones: ['leftFoot', 'rightFoot'], weight: 1 },
    { name: 'hipVelocity', kind: 'boneVelocity', bones: ['hips'], weight: 1 },
    { name: 'trajectoryPosition', kind: 'trajectoryPosition', offsets: [1 / 3, 2 / 3, 1], weight: 1 },
    { name: 'trajectoryDirection', kind: 'trajectoryDirection', offsets: [1 / 3, 2 / 3, 1], weight: 1.5 },
  ],
  // The trajectory's horizon (its longest offset): a frame closer to its clip's end has its future
  // extrapolated, a promise the clip cannot keep. With 1/3 s, such frames near the ends of short
  // clips became sinks the search chose again and again (343 transitions into one sidestep's frame 79
  // of 90 in 20 agent-minutes), each a dead end 10 frames later; on the shared captures' locomotion
  // clips alone the wander's skate fell from 37 to 17 cm/s with the whole horizon (docs/features.md).
  endMarginSeconds: 1,
  // Real hips sway at every step: a root that follows them makes every trajectory feature wobble with
  // the gait (measured on the shared captures: 2.7x the built-in data's spread). Holden smooths the
  // facing over ~1 s and the simulation bone over ~0.5 s; these are the half-widths.
  facingSmoothingSeconds: 0.5,
  positionSmoothingSeconds: 0.25,
};

/**
 * How many frames at the end of a clip of `count` frames (at `fps`) are not search candidates:
 * `endMarginSeconds`' worth, none for a loop (its last frames flow into its first), and at most half
 * the clip, so that a clip shorter than twice the margin still offers its first half.
 */
export function endMarginFrames(schema: FeatureSchema, fps: number, count: number, loop: boolean): number {
  if (loop) return 0;
  return Math.min(Math.round(schema.endMarginSeconds * fps), Math.floor(count / 2));
}

export function groupWidth(g: FeatureGroup): number {
  switch (g.kind) {
    case 'bonePosition':
    case 'boneVelocity':
      return 3 * (g.bones?.length ?? 0);
    case 'trajectoryPosition':
    case 'trajectoryDirection':
      return 2 * (g.offsets?.length ?? 0);
  }
}

/** Number of meaningful values per row (before padding). */
export function schemaDims(s: FeatureSchema): number {
  let d = 0;
  for (const g of s.groups) d += groupWidth(g);
  return d;
}

/** Row stride in floats: dims rounded up to a multiple of 4 so that f32x4 loads stay in the row. */
export function paddedStride(dims: number): number {
  return (dims + 3) & ~3;
}

/** Column range [start, end) of each group in a row. */
export function groupColumns(schema: FeatureSchema): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let c = 0;
  for (const g of schema.groups) { const w = groupWidth(g); out.push([c, c + w]); c += w; }
  return out;
}

/** Bone roles resolved to joint indices (-1 where a skeleton lacks the role, e.g. no toes). */
export type BoneRoles = Record<BoneRole, number>;

/** Resolves a schema bone (a role such as "leftFoot", or a joint name) to a joint index. */
export function resolveSchemaBone(bone: string, skeleton: Skeleton, roles: BoneRoles, jointIndex?: ReadonlyMap<string, number>): number {
  // Own properties only: a joint named "toString" is a joint, not a role.
  if (Object.hasOwn(roles, bone)) {
    const j = roles[bone as keyof BoneRoles];
    if (j < 0) throw new RangeError(`feature schema uses bone role "${bone}", which this skeleton lacks`);
    return j;
  }
  const j = jointIndex ? (jointIndex.get(bone) ?? -1) : skeleton.names.indexOf(bone);
  if (j < 0) throw new RangeError(`feature schema names bone "${bone}", which is neither a role (${Object.keys(roles).join(', ')}) nor a joint of this skeleton`);
  return j;
}

/** Per-group joint lists for a schema (empty for trajectory groups). */
export function schemaGroupBones(schema: FeatureSchema, skeleton: Skeleton, roles: BoneRoles): number[][] {
  const index = new Map<string, number>();
  skeleton.names.forEach((n, i) => { if (!index.has(n)) index.set(n, i); });
  return schema.groups.map((g) => (g.bones ?? []).map((b) => resolveSchemaBone(b, skeleton, roles, index)));
}
