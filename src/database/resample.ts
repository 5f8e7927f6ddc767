/**
 * One frame rate per database: choosing it, and resampling clips recorded at other rates to it.
 * Looping clips keep their cycle: they are resampled over the whole period (the last frame flows
 * into the first), so the resampled loop still closes.
 */
import { MAX_CLIP_JOINT_FRAMES, type Clip } from '../anim/clip.js';
import { sampleClipPose } from '../anim/pose.js';
import { quatSlerp } from '../math/quat.js';

/** The rate every clip shares, else the highest (clips are resampled to it). */
export function chooseDatabaseFps(clips: readonly Clip[]): number {
  const rates = clips.map((c) => c.fps);
  const first = rates[0];
  if (rates.every((r) => Math.abs(r - first) < 1e-9 * first)) return first;
  return Math.max(...rates);
}

/** True when a clip at `fps` needs no resampling to `target`. */
export function sameRate(fps: number, target: number): boolean {
  return Math.abs(fps - target) < 1e-9 * target;
}

/**
 * Resamples a clip to `fps` by pose sampling (slerp/lerp); returns the clip itself when already
 * there. Looping clips go through resampleLoop.
 */
export function resampleClip(clip: Clip, fps: number, joints: number): Clip {
  if (sameRate(clip.fps, fps)) return clip;
  checkResampledSize(clip, fps, joints);
  if (clip.loop) return resampleLoop(clip, fps, joints);
  const duration = (clip.frameCount - 1) / clip.fps;
  const frames = Math.max(1, Math.floor(duration * fps + 1e-9) + 1);
  const rot = new Float64Array(frames * joints * 4), pos = new Float64Array(frames * joints * 3);
  const r = new Float64Array(joints * 4), p = new Float64Array(joints * 3);
  for (let f = 0; f < frames; f++) {
    sampleClipPose(clip, f / fps, 'clamp', r, p);
    rot.set(r, f * joints * 4); pos.set(p, f * joints * 3);
  }
  return { ...clip, fps, frameCount: frames, rotations: rot, translations: pos };
}

/** Throws RangeError when `clip` at `fps` would pass MAX_CLIP_JOINT_FRAMES (a 1 fps take raised to 1000 fps). */
function checkResampledSize(clip: Clip, fps: number, joints: number): void {
  const frames = Math.ceil((clip.frameCount * fps) / clip.fps);
  if (frames * joints > MAX_CLIP_JOINT_FRAMES) {
    throw new RangeError(`clip '${clip.name}': ${clip.frameCount} frames at ${clip.fps} fps resampled to ${fps} fps make ${frames} frames of ${joints} joints, past the limit of ${MAX_CLIP_JOINT_FRAMES} joint-frames (about 2 GB to build a database from); build at a lower --fps or split the take`);
  }
}

/**
 * Resamples a looping clip of F frames (period F / clip.fps: the last frame flows into the first)
 * to the whole number of frames at `fps` nearest that period, spread evenly over it so the loop
 * still closes. Between the last frame and the next cycle's first, rotations turn towards the
 * first frame and translations continue the last step, the root's displacement over a cycle
 * included (the same continuation feature extraction assumes).
 */
export function resampleLoop(clip: Clip, fps: number, joints: number): Clip {
  checkResampledSize(clip, fps, joints);
  const F = clip.frameCount;
  const frames = Math.max(1, Math.round(F * fps / clip.fps));
  const rot = new Float64Array(frames * joints * 4), pos = new Float64Array(frames * joints * 3);
  const src = clip.rotations, srcPos = clip.translations;
  for (let f = 0; f < frames; f++) {
    const x = f * F / frames;
    const i0 = Math.min(Math.floor(x), F - 1), alpha = x - i0;
    const wraps = i0 + 1 >= F;
    const i1 = wraps ? 0 : i0 + 1;
    for (let j = 0; j < joints; j++) {
      quatSlerp(rot, (f * joints + j) * 4, src, (i0 * joints + j) * 4, src, (i1 * joints + j) * 4, alpha);
      for (let d = 0; d < 3; d++) {
        const a = srcPos[(i0 * joints + j) * 3 + d];
        // Past the last frame: continue its step (F >= 2), rather than jump back to the start.
        const step = F >= 2 ? a - srcPos[((F - 2) * joints + j) * 3 + d] : 0;
        const b = wraps ? a + step : srcPos[(i1 * joints + j) * 3 + d];
        pos[(f * joints + j) * 3 + d] = a + (b - a) * alpha;
      }
    }
  }
  return { ...clip, fps, frameCount: frames, rotations: rot, translations: pos };
}
