/**
 * Calibration poses at a take's ends. Raw takes often begin (or end) with a pose held for the
 * capture system — a T-pose, arms out — followed by the motion from one frame to the next: the
 * CMU captures as widely converted to BVH begin so, every file. Left in a database, those frames
 * are search candidates like any other: a transition lands on the pose or plays into the jump, and
 * the arms snap out and back (the shared real set with a T-pose frame in front of every clip:
 * largest joint velocity change 5.67 / 4.90 / 3.44 / 3.32 → 23.2 / 23.3 / 23.5 / 20.4 m/s).
 *
 * A clip's frames are continuous motion: a step from one frame to the next that is several times
 * larger than every other step of the clip, within a second of either end, is no motion a body
 * makes but the edge of a calibration pose, and the frames on the pose's side of it are left out.
 * A step is the largest move of any joint relative to the hips (so that travelling fast does not
 * count). Fast motion is continuous — a punch's or a sprint's largest step has neighbours nearly as
 * large — and a jump of the pose in the middle of a take is left alone (the data's, not a calibration).
 * (The same test of steps finds a take's jumps of place, place-jumps.ts, and its glitches, glitch-frames.ts.)
 */
import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { BodyFrames } from './body-frames.js';

/** How many times larger than every other step of its clip a step must be to end a calibration pose. */
export const CALIBRATION_STEP_RATIO = 2;
/** ...and at least this share of the leg's length (a still take's largest step is no pose change). */
export const CALIBRATION_MIN_STEP_LEG_LENGTHS = 0.25;
/** ...within this many seconds of the clip's first or last frame (and a quarter of the clip). */
export const CALIBRATION_END_SECONDS = 1;

/** Frames left out at the ends of one clip. */
export interface CalibrationTrim {
  clip: string;
  source: string;
  /** Frames dropped at the start and at the end (source frames). */
  start: number;
  end: number;
  /** The largest step that ended a pose (m), and how many times the next largest step of the clip it is. */
  step: number;
  ratio: number;
}

/** Per step f (frame f to f + 1): the largest move of a joint of the body relative to `hips` (m; BodyFrames.poseDistance). */
export function hipsRelativeSteps(skeleton: Skeleton, clip: Clip, hips: number): Float64Array {
  const frames = new BodyFrames(skeleton, clip, hips), steps = new Float64Array(Math.max(0, clip.frameCount - 1));
  for (let f = 0; f < steps.length; f++) steps[f] = frames.poseDistance(f, f + 1);
  return steps;
}

/**
 * The frames to keep of a clip whose steps are `steps` (hipsRelativeSteps) at `fps`, first and one
 * past the last, after leaving out a calibration pose at either end or at both; with the step
 * that ended a pose and how many times the largest other step it is. `legLength` (m) scales the
 * least step that counts. One pose: the largest step stands out from all the others; a pose at
 * each end: the two largest stand out together (each hides the other from a test of one).
 */
export function calibrationRange(steps: Float64Array, fps: number, legLength: number): { first: number; end: number; step: number; ratio: number } {
  const n = steps.length, keepAll = { first: 0, end: n + 1, step: 0, ratio: 0 };
  // The three largest steps, largest first.
  const top = [-1, -1, -1], size = [0, 0, 0];
  for (let f = 0; f < n; f++) {
    const v = steps[f];
    for (let k = 0; k < 3; k++) {
      if (v > size[k]) {
        for (let m = 2; m > k; m--) { top[m] = top[m - 1]; size[m] = size[m - 1]; }
        top[k] = f; size[k] = v;
        break;
      }
    }
  }
  const poses = size[0] >= CALIBRATION_STEP_RATIO * size[1] ? 1 : size[1] >= CALIBRATION_STEP_RATIO * size[2] ? 2 : 0;
  if (poses === 0) return keepAll;
  const near = Math.max(1, Math.round(CALIBRATION_END_SECONDS * fps));
  // Two: one at each end (two large steps at one end are a glitch's way out and back, glitch-frames.ts).
  if (poses === 2 && (top[0] < n / 2) === (top[1] < n / 2)) return keepAll;
  let first = 0, end = n + 1;
  for (let k = 0; k < poses; k++) {
    const m = top[k];
    if (!(size[k] >= CALIBRATION_MIN_STEP_LEG_LENGTHS * legLength)) return keepAll;
    // The pose is on the short side of its step, within a second of its end of the clip and at
    // most a quarter of it (in a clip of a second or two, a jump halfway is no pose at an end).
    const most = Math.min(near, Math.floor((n + 1) / 4));
    if (m < most) first = Math.max(first, m + 1);
    else if (n - 1 - m < most) end = Math.min(end, m + 1);
    else return keepAll;
  }
  if (end - first < 2) return keepAll;
  const other = size[poses];
  return { first, end, step: size[0], ratio: other > 0 ? size[poses - 1] / other : Number.POSITIVE_INFINITY };
}

/** `clip` without a calibration pose at its ends (calibrationRange), and what was left out (null: nothing). */
export function trimCalibrationFrames(skeleton: Skeleton, clip: Clip, hips: number, legLength: number): { clip: Clip; trim: CalibrationTrim | null } {
  if (clip.frameCount < 4 || clip.loop) return { clip, trim: null };
  const r = calibrationRange(hipsRelativeSteps(skeleton, clip, hips), clip.fps, legLength);
  if (r.first === 0 && r.end === clip.frameCount) return { clip, trim: null };
  const J = skeleton.names.length, n = r.end - r.first;
  const trimmed: Clip = {
    ...clip, frameCount: n,
    rotations: clip.rotations.slice(r.first * J * 4, r.end * J * 4),
    translations: clip.translations.slice(r.first * J * 3, r.end * J * 3),
  };
  return { clip: trimmed, trim: { clip: clip.name, source: clip.source, start: r.first, end: clip.frameCount - r.end, step: r.step, ratio: r.ratio } };
}

