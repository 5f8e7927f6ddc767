/**
 * The frame rates motionmatch accepts for clips and databases, in one place so that the importer,
 * the build's --fps option and the .mmdb reader refuse the same values.
 *
 * Why bounds at all: work downstream scales with the rate (resampling allocates duration * fps
 * frames, feature extraction walks the trajectory one frame at a time for a second ahead), so a
 * corrupt "Frame Time: 1e-9" would otherwise mean a billion steps per frame, and "Frame Time: 1e300"
 * a rate of 1e-300 fps. Real captures run from 24 to a few hundred frames per second.
 */

/** Lowest accepted rate (frames per second): one frame per second. */
export const MIN_FPS = 1;

/** Highest accepted rate (frames per second). */
export const MAX_FPS = 1000;

/** True when `fps` is a finite rate within [MIN_FPS, MAX_FPS]. */
export function isSupportedFrameRate(fps: number): boolean {
  return fps >= MIN_FPS && fps <= MAX_FPS;
}
