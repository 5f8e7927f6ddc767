/**
 * Looping clips. A loop's last frame flows into its first (the convention of Clip.loop, feature
 * extraction and playback). Many exported loops are "closed" instead: they repeat the first pose
 * as their last frame (the next cycle's start, the root moved on by one cycle). Played as a loop
 * that frame would show twice; it is dropped so that every loop is open.
 */
import type { Clip } from '../anim/clip.js';
import type { Skeleton } from '../anim/skeleton.js';

/** Largest joint rotation difference (degrees) between the first and last frame of a closed loop. */
export const CLOSED_LOOP_DEGREES = 0.5;

/** Largest rotation angle (degrees) between frame a and frame b over the given joints. */
function largestTurn(clip: Clip, J: number, joints: readonly number[], a: number, b: number): number {
  let worst = 0;
  for (const j of joints) {
    const ra = (a * J + j) * 4, rb = (b * J + j) * 4;
    let dot = 0;
    for (let k = 0; k < 4; k++) dot += clip.rotations[ra + k] * clip.rotations[rb + k];
    worst = Math.max(worst, 2 * Math.acos(Math.min(1, Math.abs(dot))) * 180 / Math.PI);
  }
  return worst;
}

/**
 * True when a looping clip repeats its first pose as its last frame: every joint below the hips
 * (whose local rotations do not depend on where the character is or faces) turned by less than
 * CLOSED_LOOP_DEGREES, while the pose did change within the clip.
 */
export function isClosedLoop(clip: Clip, skeleton: Skeleton, hips: number): boolean {
  const F = clip.frameCount, J = skeleton.names.length;
  if (!clip.loop || F < 3 || hips < 0) return false;
  const below: number[] = [];
  for (let j = 0; j < J; j++) {
    for (let p = skeleton.parents[j]; p >= 0; p = skeleton.parents[p]) if (p === hips) { below.push(j); break; }
  }
  if (below.length === 0) return false;
  if (largestTurn(clip, J, below, 0, F - 1) >= CLOSED_LOOP_DEGREES) return false;
  // A still pose "loops" trivially; it needs no change.
  let moved = 0;
  for (let f = 1; f < F - 1 && moved < CLOSED_LOOP_DEGREES; f++) moved = Math.max(moved, largestTurn(clip, J, below, 0, f));
  return moved >= CLOSED_LOOP_DEGREES;
}

/** The loop without its repeated last frame when it is closed (see isClosedLoop); else the clip. */
export function openLoop(clip: Clip, skeleton: Skeleton, hips: number): Clip {
  if (!isClosedLoop(clip, skeleton, hips)) return clip;
  const J = skeleton.names.length, F = clip.frameCount - 1;
  return { ...clip, frameCount: F, rotations: clip.rotations.slice(0, F * J * 4), translations: clip.translations.slice(0, F * J * 3) };
}
