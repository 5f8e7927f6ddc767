/**
 * A take as raw captures often come (the CMU captures as converted to BVH, every file): a T-pose
 * frame in front of the motion — the clip's first frame with both arms straight and horizontal,
 * out to the sides — and the motion from the next frame on.
 */
import type { Skeleton } from '../../src/anim/skeleton.js';
import type { Clip } from '../../src/anim/clip.js';
import { worldTransformsOfFrames } from '../../src/anim/pose.js';
import { quatFromTo, quatInvMultiply, quatMultiply, quatRotateVec3 } from '../../src/math/quat.js';

/** The arm chains (shoulder joint, elbow joint, wrist joint) of `skeleton` by role-like names: upper arm, lower arm, hand per side. */
export interface ArmJoints { upper: number; lower: number; hand: number }

function unit(v: Float64Array): Float64Array {
  const n = Math.hypot(v[0], v[1], v[2]);
  for (let k = 0; k < 3; k++) v[k] /= n;
  return v;
}

/**
 * `clip` with `frames` T-pose frames in front: frame 0's pose with each arm's upper and lower bone
 * pointing along `side` (towards the body's left for arms[0], right for arms[1]), `left` and
 * `right` the thigh joints that give the body's side.
 */
export function withTPoseInFront(skeleton: Skeleton, clip: Clip, arms: readonly [ArmJoints, ArmJoints], left: number, right: number, frames = 1): Clip {
  const J = skeleton.names.length, parents = skeleton.parents;
  const wr = new Float64Array(J * 4), wp = new Float64Array(J * 3);
  worldTransformsOfFrames(parents, clip.rotations, clip.translations, 1, wr, wp);
  const side = unit(Float64Array.of(wp[3 * left] - wp[3 * right], 0, wp[3 * left + 2] - wp[3 * right + 2]));
  const pose = clip.rotations.slice(0, J * 4);
  const R = new Float64Array(4), R2 = new Float64Array(4), Wu = new Float64Array(4), Wl = new Float64Array(4), d = new Float64Array(3), t = new Float64Array(3);
  arms.forEach((arm, i) => {
    for (let k = 0; k < 3; k++) t[k] = i === 0 ? side[k] : -side[k];
    // The upper bone turned onto the side, in the world; then the lower bone turned onto it too.
    for (let k = 0; k < 3; k++) d[k] = wp[3 * arm.lower + k] - wp[3 * arm.upper + k];
    quatFromTo(R, 0, unit(d), 0, t, 0);
    quatMultiply(Wu, 0, R, 0, wr, 4 * arm.upper);
    quatInvMultiply(pose, 4 * arm.upper, wr, 4 * parents[arm.upper], Wu, 0);
    for (let k = 0; k < 3; k++) d[k] = wp[3 * arm.hand + k] - wp[3 * arm.lower + k];
    quatRotateVec3(d, 0, R, 0, unit(d), 0);
    quatFromTo(R2, 0, unit(d), 0, t, 0);
    quatMultiply(Wl, 0, R, 0, wr, 4 * arm.lower);
    quatMultiply(Wl, 0, R2, 0, Wl, 0);
    quatInvMultiply(pose, 4 * arm.lower, Wu, 0, Wl, 0);
  });
  const F = clip.frameCount, rotations = new Float64Array((F + frames) * J * 4), translations = new Float64Array((F + frames) * J * 3);
  for (let f = 0; f < frames; f++) { rotations.set(pose, f * J * 4); translations.set(clip.translations.subarray(0, J * 3), f * J * 3); }
  rotations.set(clip.rotations, frames * J * 4); translations.set(clip.translations, frames * J * 3);
  return { ...clip, frameCount: F + frames, rotations, translations };
}
