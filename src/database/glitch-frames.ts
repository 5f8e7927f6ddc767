/**
 * Capture glitches inside a take: a frame, or two or three, where the pose or the body's place
 * jumps away and comes back (a marker swap, a dropout the solver filled with a wrong pose). Left
 * in, the engine plays them as they are: with one such frame in the middle of every clip of the
 * shared real set (the arms thrown straight out for a frame), the largest joint velocity change
 * went from 5.67 / 4.90 / 3.44 / 3.32 to 52.0 / 50.9 / 53.4 / 59.6 m/s (wander / path / stop-go /
 * strafe), the arms flicking out and back.
 *
 * A run of at most GLITCH_MOST_FRAMES frames is a glitch when the steps into it and out of it are
 * both at least CALIBRATION_STEP_RATIO times every other step of the clip and a quarter of a leg,
 * while the frames on either side of it are no further apart than the clip's own steps could take
 * them over that many frames (or CALIBRATION_STEP_RATIO times closer than the glitch): the motion
 * went away and came back. Its frames are then
 * interpolated from the frames around it (local rotations normalised-lerped, translations lerped).
 * A step is measured as calibration-frames.ts measures it (the largest move of a joint of the body
 * relative to the hips), and the hips' own move in the world counts too.
 */
import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { CALIBRATION_MIN_STEP_LEG_LENGTHS, CALIBRATION_STEP_RATIO } from './calibration-frames.js';
import { BodyFrames } from './body-frames.js';

/** The longest run of frames a glitch may be. */
export const GLITCH_MOST_FRAMES = 3;
/** At most this many glitches are repaired in one take (more is no glitch but the take's motion). */
const MOST_GLITCHES = 16;

/** Glitches repaired in one clip: runs of source frames [first, last]. */
export interface GlitchRepair {
  clip: string;
  source: string;
  runs: Array<[number, number]>;
}

/**
 * The glitch run [first, last] with the largest steps in and out of it, given the steps `s` and
 * `frames` (BodyFrames), or null. See the file's comment for the test.
 */
function findGlitch(s: Float64Array, frames: BodyFrames, least: number): [number, number] | null {
  const n = s.length; // steps; frames 0..n
  // The largest steps, to find the largest one outside a run's own steps.
  const order = Array.from({ length: n }, (_, f) => f).sort((a, b) => s[b] - s[a] || a - b).slice(0, 2 * GLITCH_MOST_FRAMES + 4);
  let best: [number, number] | null = null, bestSize = 0;
  for (let p = 1; p + 1 <= n; p++) {
    if (!(s[p - 1] >= least)) continue;
    for (let q = p; q <= Math.min(p + GLITCH_MOST_FRAMES - 1, n - 1); q++) {
      const into = s[p - 1], out = s[q], size = Math.min(into, out);
      if (!(size >= least) || size <= bestSize) continue;
      let other = 0;
      for (const f of order) if (f < p - 1 || f > q) { other = s[f]; break; }
      if (!(size >= CALIBRATION_STEP_RATIO * other)) continue;
      // Came back: the frames around the run no further apart than the clip's own motion could take
      // them over that many steps (each step at most `other`), or than the glitch is from them.
      const around = frames.distance(p - 1, q + 1);
      if (!(around <= (q - p + 2) * other || around * CALIBRATION_STEP_RATIO <= size)) continue;
      best = [p, q]; bestSize = size;
    }
  }
  return best;
}

/** `clip` with its glitches interpolated (see the file's comment), and the runs repaired (empty: none; the clip itself is returned). */
export function repairGlitches(skeleton: Skeleton, clip: Clip, hips: number, legLength: number): { clip: Clip; runs: Array<[number, number]> } {
  const F = clip.frameCount, J = skeleton.names.length;
  if (F < 5) return { clip, runs: [] };
  const least = CALIBRATION_MIN_STEP_LEG_LENGTHS * legLength;
  let work: Clip | null = null;
  const frames = new BodyFrames(skeleton, clip, hips);
  const runs: Array<[number, number]> = [];
  const s = new Float64Array(F - 1);
  for (let round = 0; round < MOST_GLITCHES; round++) {
    for (let f = 0; f + 1 < F; f++) s[f] = frames.distance(f, f + 1);
    const run = findGlitch(s, frames, least);
    if (run === null) break;
    if (work === null) {
      // Repaired on a copy (the caller's clip is left as it was): the same numbers, so `frames` holds
      // for it as it is and follows it from here.
      work = { ...clip, rotations: Float64Array.from(clip.rotations), translations: Float64Array.from(clip.translations) };
      frames.clip = work;
    }
    const [p, q] = run, a = p - 1, b = q + 1, R = work.rotations, T = work.translations;
    for (let f = p; f <= q; f++) {
      const u = (f - a) / (b - a);
      for (let j = 0; j < J; j++) {
        const ra = (a * J + j) * 4, rb = (b * J + j) * 4, r = (f * J + j) * 4;
        const sign = R[ra] * R[rb] + R[ra + 1] * R[rb + 1] + R[ra + 2] * R[rb + 2] + R[ra + 3] * R[rb + 3] < 0 ? -1 : 1;
        let n = 0;
        for (let k = 0; k < 4; k++) { R[r + k] = (1 - u) * R[ra + k] + u * sign * R[rb + k]; n += R[r + k] * R[r + k]; }
        n = Math.sqrt(n);
        for (let k = 0; k < 4; k++) R[r + k] /= n;
        const ta = (a * J + j) * 3, tb = (b * J + j) * 3, t = (f * J + j) * 3;
        for (let k = 0; k < 3; k++) T[t + k] = (1 - u) * T[ta + k] + u * T[tb + k];
      }
      frames.update(f);
    }
    runs.push([p, q]);
  }
  return { clip: work ?? clip, runs: runs.sort((x, y) => x[0] - y[0]) };
}
