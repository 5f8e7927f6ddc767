/**
 * Overlay clips: the motion an overlay layer (overlay/overlay.ts) plays over the base locomotion, as local
 * joint rotations per frame with their angular velocities. A database clip is read in place (views
 * into the runtime's root-relative poses, no copy); a clip of your own (a gesture recorded on the
 * same rig, a synthesized one) is given as rotations per frame.
 */
import type { Database } from '../../database/database.js';
import type { Skeleton } from '../../anim/skeleton.js';
import type { Clip } from '../../anim/clip.js';
import { quatMultiplyInv, quatToScaledAngleAxis } from '../../math/quat.js';
import { databaseRuntime, framesRotations } from '../database-runtime.js';

export interface OverlayClip {
  readonly name: string;
  readonly fps: number;
  readonly frames: number;
  readonly joints: number;
  /** True when the last frame flows back into the first. */
  readonly loop: boolean;
  /** Local rotations, frames * joints * 4 (x, y, z, w); database clips are root-relative like DatabaseRuntime's. */
  readonly rotations: Float32Array;
  /** Local angular velocities, frames * joints * 3 (rad/s, parent frame; forward differences). */
  readonly angularVelocities: Float32Array;
  /** The database frame of the clip's first frame; -1 for a clip that is not in the database. */
  readonly databaseStart: number;
  /** The database clip index; -1 for a clip that is not in the database. */
  readonly databaseClip: number;
}

const byDatabase = new WeakMap<Database, Array<OverlayClip | undefined>>();

/** The database clip `clip` (index or name) as an overlay clip: its rebased rotations (a copy of the clip's frames) and a view of its angular velocities, cached. */
export function overlayClipFromDatabase(db: Database, clip: number | string): OverlayClip {
  const index = typeof clip === 'number' ? clip : db.clips.findIndex((c) => c.name === clip);
  if (!(Number.isInteger(index) && index >= 0 && index < db.clips.length)) {
    const names = db.clips.slice(0, 6).map((c) => c.name).join(', ');
    throw new RangeError(`overlay clip: the database has no clip ${typeof clip === 'number' ? `#${clip}` : `named '${clip}'`} (${db.clips.length} clips: ${names}${db.clips.length > 6 ? ', ...' : ''})`);
  }
  let cache = byDatabase.get(db);
  if (!cache) { cache = new Array(db.clips.length); byDatabase.set(db, cache); }
  const cached = cache[index];
  if (cached) return cached;
  const rt = databaseRuntime(db), c = db.clips[index], J = rt.joints;
  const made: OverlayClip = {
    name: c.name, fps: db.fps, frames: c.count, joints: J, loop: c.loop,
    rotations: framesRotations(rt, c.start, c.count),
    angularVelocities: rt.angularVelocities.subarray(c.start * J * 3, (c.start + c.count) * J * 3),
    databaseStart: c.start, databaseClip: index,
  };
  cache[index] = made;
  return made;
}

/**
 * An overlay clip from local rotations of your own (frames * J * 4, unit quaternions, for
 * `skeleton`) at `fps`; angular velocities by forward differences (backward on the last frame, or
 * across the wrap when it loops).
 */
export function overlayClipFromRotations(
  skeleton: Skeleton, rotations: ArrayLike<number>, fps: number, options: { name?: string; loop?: boolean } = {},
): OverlayClip {
  const J = skeleton.names.length, name = options.name ?? 'overlay';
  if (!(Number.isFinite(fps) && fps > 0 && fps <= 1000)) throw new RangeError(`overlay clip '${name}': fps must be in (0, 1000], got ${fps}`);
  if (!(rotations.length > 0 && rotations.length % (4 * J) === 0)) {
    throw new RangeError(`overlay clip '${name}': ${rotations.length} rotation values is not a whole number of frames of ${J} joints (4 values each)`);
  }
  const frames = rotations.length / (4 * J);
  const rot = new Float64Array(rotations.length);
  for (let i = 0; i < rotations.length; i += 4) {
    const x = rotations[i], y = rotations[i + 1], z = rotations[i + 2], w = rotations[i + 3];
    const len = Math.sqrt(x * x + y * y + z * z + w * w);
    if (!(Math.abs(len - 1) < 1e-3)) {
      throw new RangeError(`overlay clip '${name}': frame ${Math.floor(i / (4 * J))}, joint ${skeleton.names[(i / 4) % J]}: not a unit quaternion (length ${len})`);
    }
    rot[i] = x / len; rot[i + 1] = y / len; rot[i + 2] = z / len; rot[i + 3] = w / len;
  }
  const loop = options.loop === true;
  const omega = new Float32Array(frames * J * 3);
  const q = new Float64Array(4), v = new Float64Array(3);
  for (let f = 0; f < frames; f++) {
    const a = frames === 1 ? f : f < frames - 1 ? f : loop ? f : f - 1;
    const b = frames === 1 ? f : f < frames - 1 ? f + 1 : loop ? 0 : f;
    for (let j = 0; j < J; j++) {
      quatMultiplyInv(q, 0, rot, (b * J + j) * 4, rot, (a * J + j) * 4);
      quatToScaledAngleAxis(v, 0, q, 0);
      for (let d = 0; d < 3; d++) omega[(f * J + j) * 3 + d] = v[d] * fps;
    }
  }
  return { name, fps, frames, joints: J, loop, rotations: Float32Array.from(rot), angularVelocities: omega, databaseStart: -1, databaseClip: -1 };
}

/** An imported clip (e.g. a gesture in a BVH file of the same rig) as an overlay clip. */
export function overlayClipFromClip(skeleton: Skeleton, clip: Clip): OverlayClip {
  return overlayClipFromRotations(skeleton, clip.rotations, clip.fps, { name: clip.name, loop: clip.loop });
}
