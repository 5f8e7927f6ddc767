/**
 * Mirroring, judged from the output: for every naming convention, the mirrored copy of a walk puts
 * each joint where the original's mirror image has its counterpart — the joint at the reflected
 * place in the rest pose, found from the geometry, never from the names. A convention whose sides
 * the names do not pair (CMU's `lfemur`/`rfemur` were read as unpaired until 2026-12-06) mirrors
 * each limb in place: the legs cross and the database learns poses nobody captured.
 */
import { describe, expect, it } from 'vitest';
import { mirrorClip } from '../../src/features/mirror.js';
import { forwardKinematics } from '../../src/anim/pose.js';
import type { Skeleton } from '../../src/anim/skeleton.js';
import type { Clip } from '../../src/anim/clip.js';
import { RIG_CONVENTIONS, skeletonOfRows, walkClip } from './rig-conventions.js';

/** World positions of every joint of frame f (J*3). */
function worldPositions(s: Skeleton, c: Clip, f: number): Float64Array {
  const J = s.names.length, wr = new Float64Array(4 * J), wp = new Float64Array(3 * J);
  forwardKinematics(s.parents, c.rotations, 4 * J * f, c.translations, 3 * J * f, wr, wp);
  return wp;
}

/** Per joint, the joint at its mirror image across x = 0 in the rest pose (the rigs' left is +X). */
function restCounterparts(s: Skeleton): Int32Array {
  const J = s.names.length, rest: Clip = { name: 'rest', source: 'rest', fps: 30, frameCount: 1, loop: false, tags: [], rotations: new Float64Array(4 * J), translations: Float64Array.from(s.offsets) };
  for (let j = 0; j < J; j++) rest.rotations[4 * j + 3] = 1;
  const p = worldPositions(s, rest, 0);
  return Int32Array.from({ length: J }, (_, j) => {
    let best = -1, bestD = Infinity;
    for (let k = 0; k < J; k++) {
      // The nearest joint to the reflected place, preferring the deepest (a zero-length link sits where its child does).
      const d = Math.hypot(p[3 * k] + p[3 * j], p[3 * k + 1] - p[3 * j + 1], p[3 * k + 2] - p[3 * j + 2]);
      if (d < bestD - 1e-9 || (Math.abs(d - bestD) <= 1e-9 && depth(s, k) === depth(s, j))) { bestD = d; best = k; }
    }
    return best;
  });
}

function depth(s: Skeleton, j: number): number {
  let d = 0;
  for (let p = s.parents[j]; p >= 0; p = s.parents[p]) d++;
  return d;
}

/** The largest distance (m) over frames and joints between the mirrored copy's joint and the reflection of its counterpart in the original. */
function mirrorMiss(s: Skeleton): number {
  const clip = walkClip(s, 'walk'), mirrored = mirrorClip(s, clip), other = restCounterparts(s);
  let worst = 0;
  for (let f = 0; f < clip.frameCount; f += 5) {
    const a = worldPositions(s, clip, f), b = worldPositions(s, mirrored, f);
    for (let j = 0; j < s.names.length; j++) {
      const k = other[j];
      worst = Math.max(worst, Math.hypot(b[3 * k] + a[3 * j], b[3 * k + 1] - a[3 * j + 1], b[3 * k + 2] - a[3 * j + 2]));
    }
  }
  return worst;
}

describe('mirrored motion is the reflection of the original, for every convention whose names give sides', () => {
  for (const c of RIG_CONVENTIONS.filter((c) => !c.label.startsWith('names that say nothing'))) {
    it(c.label, () => {
      expect(mirrorMiss(skeletonOfRows(c.rows))).toBeLessThan(1e-6);
    });
  }

  it('the measure fails where the names pair nothing: a rig of Bone.NNN names is mirrored limb by limb in place', () => {
    const c = RIG_CONVENTIONS.find((c) => c.label.startsWith('names that say nothing'))!;
    expect(mirrorMiss(skeletonOfRows(c.rows))).toBeGreaterThan(0.1);
  });
});
