/**
 * A jump of the body's place within a take: a take whose hips move further from one frame to the
 * next than they ever move otherwise (CALIBRATION_STEP_RATIO times, at least a quarter of a leg)
 * was spliced from two, or its capture volume was reset — no motion a body makes. Played through,
 * the character was carried a metre in one step (the shared real set with such a jump in 24 walks:
 * the strafe's largest joint velocity change 30.4 m/s). Such a take is cut there into two clips
 * (splitAtPlaceJumps), the second named NAME@FRAME.
 */
import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { BodyFrames } from './body-frames.js';
import { CALIBRATION_MIN_STEP_LEG_LENGTHS, CALIBRATION_STEP_RATIO } from './calibration-frames.js';

/** Per step f (frame f to f + 1): how far `hips` moves in the world (m). */
export function hipsSteps(skeleton: Skeleton, clip: Clip, hips: number): Float64Array {
  const place = new BodyFrames(skeleton, clip, hips).place, steps = new Float64Array(Math.max(0, clip.frameCount - 1));
  for (let f = 0; f < steps.length; f++) steps[f] = Math.hypot(place[3 * f + 3] - place[3 * f], place[3 * f + 4] - place[3 * f + 1], place[3 * f + 5] - place[3 * f + 2]);
  return steps;
}

/** At most this many cuts in one take. */
const MOST_PLACE_JUMPS = 8;

/**
 * The steps (indices into `steps`) after which a take is cut: the largest steps, as many as stand
 * out together from all the others (CALIBRATION_STEP_RATIO times the largest of the rest: one jump
 * does not hide another), each at least a quarter of `legLength`, and each leaving parts of at
 * least 2 frames. Sorted.
 */
export function placeJumps(steps: Float64Array, legLength: number): number[] {
  const n = steps.length;
  const order = Array.from({ length: n }, (_, f) => f).sort((a, b) => steps[b] - steps[a] || a - b);
  let k = 0;
  for (let i = 0; i < Math.min(MOST_PLACE_JUMPS, n - 1); i++) {
    if (steps[order[i]] >= CALIBRATION_STEP_RATIO * steps[order[i + 1]]) { k = i + 1; break; }
  }
  const cuts = order.slice(0, k).sort((a, b) => a - b);
  if (cuts.some((m) => !(steps[m] >= CALIBRATION_MIN_STEP_LEG_LENGTHS * legLength))) return [];
  // Parts of a frame are no takes: a cut leaving one is dropped.
  const kept: number[] = [];
  let from = 0;
  for (const m of cuts) if (m + 1 - from >= 2 && n + 1 - (m + 1) >= 2) { kept.push(m); from = m + 1; }
  return kept;
}

/** A take cut at its jumps of place (placeJumps): the clips, and where it was cut (empty: as it was). */
export function splitAtPlaceJumps(skeleton: Skeleton, clip: Clip, hips: number, legLength: number): { clips: Clip[]; cuts: Array<{ frame: number; step: number }> } {
  if (clip.frameCount < 4 || clip.loop) return { clips: [clip], cuts: [] };
  const steps = hipsSteps(skeleton, clip, hips), jumps = placeJumps(steps, legLength);
  if (jumps.length === 0) return { clips: [clip], cuts: [] };
  const J = skeleton.names.length, clips: Clip[] = [];
  let start = 0;
  for (const m of [...jumps, clip.frameCount - 1]) {
    const end = m + 1;
    clips.push({
      ...clip, name: start === 0 ? clip.name : `${clip.name}@${start}`, frameCount: end - start,
      rotations: clip.rotations.slice(start * J * 4, end * J * 4), translations: clip.translations.slice(start * J * 3, end * J * 3),
    });
    start = end;
  }
  return { clips, cuts: jumps.map((m) => ({ frame: m + 1, step: steps[m] })) };
}
