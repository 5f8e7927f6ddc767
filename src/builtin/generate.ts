/**
 * The project's built-in procedural locomotion data: a generated humanoid and a set of walk, jog,
 * run, turn, strafe, start/stop and idle clips that need no downloads. Deterministic (identical
 * arrays on every run) and fast (well under a second).
 */
import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { createBuiltinSkeleton } from './procedural-skeleton.js';
import { builtinClipSpecs, renderBuiltinClip, type BuiltinClipSpec } from './clips.js';

export { createBuiltinSkeleton, BUILTIN_JOINT, BUILTIN_JOINT_NAMES, FOOT_GEOMETRY } from './procedural-skeleton.js';
export { builtinClipSpecs, renderBuiltinClip, type BuiltinClipSpec } from './clips.js';

export interface BuiltinOptions {
  /** Sample rate of the clips (default 30). */
  fps?: number;
  /**
   * Leave out the right-hand twin of every left/right pair (turns, strafes, cuts, U-turns, turns
   * on the spot), for databases built with mirroring on: the mirror then supplies the right-hand
   * versions and the database holds no near-duplicates. Default false (all clips).
   */
  mirrorSafe?: boolean;
}

export interface BuiltinData {
  skeleton: Skeleton;
  clips: Clip[];
  /** True contact labels per clip, one byte per frame: bit 1 = left foot planted, bit 2 = right. */
  contacts: Uint8Array[];
}

/** The specs that `generateBuiltinClips(options)` renders, in the same order as its clips. */
export function selectBuiltinSpecs(options: BuiltinOptions = {}): BuiltinClipSpec[] {
  const all = builtinClipSpecs();
  return options.mirrorSafe ? all.filter((s) => !(s.rightTwin && /(^|_)right(_|$)/.test(s.name))) : all;
}

export function generateBuiltinClips(options: BuiltinOptions = {}): BuiltinData {
  const fps = options.fps ?? 30;
  if (!(Number.isFinite(fps) && fps >= 10 && fps <= 240)) throw new RangeError(`builtin clips: fps must be in [10, 240], got ${fps}`);
  const skeleton = createBuiltinSkeleton();
  const clips: Clip[] = [];
  const contacts: Uint8Array[] = [];
  for (const spec of selectBuiltinSpecs(options)) {
    const r = renderBuiltinClip(skeleton, spec, fps);
    clips.push(r.clip);
    contacts.push(r.contacts);
  }
  return { skeleton, clips, contacts };
}
