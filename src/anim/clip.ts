/**
 * An animation clip: local joint rotations and translations sampled at a fixed rate, stored
 * frame-major in flat arrays (frame f, joint j: rotations[(f * J + j) * 4 ..], translations[(f * J + j) * 3 ..]).
 * Every joint has a translation per frame: the rest offset where the source had no position channels.
 */
export interface Clip {
  name: string;
  /** Where the clip came from (file path or "builtin"), for messages. */
  source: string;
  /** Samples per second. */
  fps: number;
  frameCount: number;
  /** Local rotations, unit quaternions (x, y, z, w): frameCount * joints * 4. */
  rotations: Float64Array;
  /** Local translations in metres: frameCount * joints * 3. */
  translations: Float64Array;
  /** True when the last frame flows back into the first (cyclic locomotion). */
  loop: boolean;
  /** Free-form labels (e.g. "walk", "idle") copied into the database's tag bits. */
  tags: string[];
}


/**
 * Upper bound on frames * joints of one clip, as imported or resampled: 2^23, 53 minutes of a
 * 22-joint skeleton at 120 fps. Not the pose arrays' size (470 MB at the limit) but what a database
 * built from the clip needs: measured, 230 bytes per joint-frame at the build's peak (a 66 MB BVH of
 * 3.6 M frames of 9 joints, within the former limit of 2^25, took 7.5 GB), about 1.9 GB here.
 */
export const MAX_CLIP_JOINT_FRAMES = 1 << 23;
