import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { mirrorClip, mirrorSetup } from '../../src/features/mirror.js';
import { worldPositionsOfFrames } from '../../src/anim/pose.js';
import { quatNormalize } from '../../src/math/quat.js';
import type { Clip } from '../../src/anim/clip.js';
import type { Skeleton } from '../../src/anim/skeleton.js';
import { bipedSkeleton } from '../helpers/skeletons.js';

function randomClip(s: Skeleton, frames: number, values: number[]): Clip {
  const J = s.names.length;
  const rotations = new Float64Array(frames * J * 4);
  const translations = new Float64Array(frames * J * 3);
  let k = 0;
  const next = () => values[k++ % values.length];
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < J; j++) {
      const o = (f * J + j) * 4;
      rotations[o] = next(); rotations[o + 1] = next(); rotations[o + 2] = next(); rotations[o + 3] = 1 + Math.abs(next());
      quatNormalize(rotations, o, rotations, o);
      for (let c = 0; c < 3; c++) translations[(f * J + j) * 3 + c] = s.offsets[3 * j + c] + (s.parents[j] < 0 ? next() : 0);
    }
  }
  return { name: 'c', source: 'test', fps: 30, frameCount: frames, rotations, translations, loop: false, tags: [] };
}

describe('mirroring', () => {
  for (const axis of [0, 2] as const) {
    it(`mirrors world positions across x with sides swapped (rest pose symmetric in ${axis === 0 ? 'x' : 'z'})`, () => {
      const s = bipedSkeleton(axis);
      const setup = mirrorSetup(s);
      expect(setup.axes[s.names.indexOf('UpperLeg_L')]).toBe(axis);
      fc.assert(fc.property(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 8, maxLength: 64 }), (values) => {
        const J = s.names.length, F = 3;
        const clip = randomClip(s, F, values);
        const m = mirrorClip(s, clip, setup);
        const a = new Float64Array(F * J * 3), b = new Float64Array(F * J * 3);
        worldPositionsOfFrames(s.parents, clip.rotations, clip.translations, F, a);
        worldPositionsOfFrames(s.parents, m.rotations, m.translations, F, b);
        for (let f = 0; f < F; f++) {
          for (let j = 0; j < J; j++) {
            const p = setup.partner[j];
            const mo = (f * J + j) * 3, po = (f * J + p) * 3;
            expect(b[mo]).toBeCloseTo(-a[po], 9);
            expect(b[mo + 1]).toBeCloseTo(a[po + 1], 9);
            expect(b[mo + 2]).toBeCloseTo(a[po + 2], 9);
          }
        }
      }), { numRuns: 50 });
    });
  }

  it('is an involution: mirroring twice gives the original pose', () => {
    const s = bipedSkeleton(2);
    const clip = randomClip(s, 4, [0.3, -0.2, 0.7, 0.1, -0.5, 0.25, 0.9]);
    const twice = mirrorClip(s, mirrorClip(s, clip));
    const J = s.names.length;
    const a = new Float64Array(4 * J * 3), b = new Float64Array(4 * J * 3);
    worldPositionsOfFrames(s.parents, clip.rotations, clip.translations, 4, a);
    worldPositionsOfFrames(s.parents, twice.rotations, twice.translations, 4, b);
    for (let i = 0; i < a.length; i++) expect(b[i]).toBeCloseTo(a[i], 12);
  });
});

describe('mirroring a skeleton with mixed local conventions', () => {
  it('finds a reflection per joint and mirrors positions exactly', () => {
    // Legs mirror in local x, the hips in local y (as in the Bandai data).
    const s = bipedSkeleton(0);
    const ul = s.names.indexOf('UpperLeg_L'), ur = s.names.indexOf('UpperLeg_R');
    s.offsets.set([-0.02, -0.1, 0], 3 * ul); s.offsets.set([-0.02, 0.1, 0], 3 * ur);
    s.offsets.set([0.2, 0, 0.02], 3 * s.names.indexOf('Spine'));
    const setup = mirrorSetup(s);
    expect(setup.axes[s.names.indexOf('Hips')]).toBe(1);
    expect(setup.axes[ul]).toBe(0);
    const J = s.names.length, F = 2;
    const clip = randomClip(s, F, [0.2, -0.4, 0.1, 0.3, 0.6, -0.7, 0.05]);
    const m = mirrorClip(s, clip, setup);
    const a = new Float64Array(F * J * 3), b = new Float64Array(F * J * 3);
    worldPositionsOfFrames(s.parents, clip.rotations, clip.translations, F, a);
    worldPositionsOfFrames(s.parents, m.rotations, m.translations, F, b);
    for (let f = 0; f < F; f++) for (let j = 0; j < J; j++) {
      const p = setup.partner[j];
      expect(b[(f * J + j) * 3]).toBeCloseTo(-a[(f * J + p) * 3], 9);
      expect(b[(f * J + j) * 3 + 1]).toBeCloseTo(a[(f * J + p) * 3 + 1], 9);
      expect(b[(f * J + j) * 3 + 2]).toBeCloseTo(a[(f * J + p) * 3 + 2], 9);
    }
  });
});

describe('symmetric joint frames', () => {
  it('undoes a rig whose right legs are turned half a turn, keeping world positions', async () => {
    const { symmetrizeJointFrames } = await import('../../src/features/symmetric-frames.js');
    const s = bipedSkeleton(0);
    const J = s.names.length, F = 3;
    const clip = randomClip(s, F, [0.2, -0.4, 0.1, 0.3, 0.6, -0.7, 0.05, 0.33]);
    // Build a "Maya-style" rig: right leg frames turned by a half turn about y (x and z flipped).
    const right = ['UpperLeg_R', 'LowerLeg_R', 'Foot_R', 'Toes_R'].map((n) => s.names.indexOf(n));
    const flipped = { ...s, offsets: Float64Array.from(s.offsets) };
    const rig = { ...clip, rotations: Float64Array.from(clip.rotations), translations: Float64Array.from(clip.translations) };
    const turn = (v: Float64Array, o: number) => { v[o] = -v[o]; v[o + 2] = -v[o + 2]; };
    for (const j of right) {
      const parentTurned = right.includes(s.parents[j]);
      if (parentTurned) turn(flipped.offsets, 3 * j);
      for (let f = 0; f < F; f++) {
        if (parentTurned) turn(rig.translations, (f * J + j) * 3);
        // L~ = K_p L K with K = diag(-1, 1, -1): conjugation flips x and z of the quaternion's vector part
        // when both are turned, and multiplies by (0,1,0,0) on one side otherwise.
        const o = (f * J + j) * 4;
        const [x, y, z, w] = Array.from(rig.rotations.subarray(o, o + 4));
        if (parentTurned) rig.rotations.set([-x, y, -z, w], o);
        else rig.rotations.set([-z, w, x, -y], o); // L * (0,1,0,0)
      }
    }
    const before = new Float64Array(F * J * 3), after = new Float64Array(F * J * 3), orig = new Float64Array(F * J * 3);
    worldPositionsOfFrames(s.parents, clip.rotations, clip.translations, F, orig);
    worldPositionsOfFrames(s.parents, rig.rotations, rig.translations, F, before);
    for (let i = 0; i < orig.length; i++) expect(before[i]).toBeCloseTo(orig[i], 9); // the rig is the same motion
    const sym = symmetrizeJointFrames(flipped, [rig]);
    for (const j of right) expect(sym.turns[j]).toBe(2);
    worldPositionsOfFrames(s.parents, sym.clips[0].rotations, sym.clips[0].translations, F, after);
    for (let i = 0; i < orig.length; i++) expect(after[i]).toBeCloseTo(orig[i], 9);
    for (let j = 0; j < J; j++) for (let k = 0; k < 3; k++) expect(sym.skeleton.offsets[3 * j + k]).toBeCloseTo(s.offsets[3 * j + k], 12);
  });
});
