/**
 * Limits every Database respects, wherever it comes from (`motionmatch build`, a .mmdb file, a
 * test): one place, so that the builder, the importer and the file reader refuse the same things.
 */

/**
 * Frame rates a database may have: the importer's bounds (src/anim/frame-rate.ts), also the range
 * of `build --fps`. Bounding the rate also bounds every seconds-to-frames conversion the runtime does
 * (end margins of at most 10 s, trajectory offsets of at most 60 s become at most 60,000 frames),
 * so a damaged rate (1e308, 5e-324) cannot turn into a loop or an allocation of absurd size.
 */
export { MIN_FPS, MAX_FPS } from '../anim/frame-rate.js';
import { isSupportedFrameRate } from '../anim/frame-rate.js';

/** Tag bits are one u32 per frame, so a database has at most 32 distinct tags. */
export const MAX_TAGS = 32;

/** True when `fps` is a finite number of frames per second in [MIN_FPS, MAX_FPS]. */
export function isSupportedFps(fps: unknown): fps is number {
  return typeof fps === 'number' && isSupportedFrameRate(fps);
}
