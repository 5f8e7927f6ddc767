/**
 * Bone masks: subtrees by name with a falloff, the upper body and the arms from the bone roles,
 * explicit weights, the one-line specification, and errors that name what is wrong.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import type { Database } from '../../src/database/database.js';
import {
  armsMask, boneMaskFromSubtree, boneMaskFromWeightArray, boneMaskFromWeights, BoneMaskError, maskSparesLegs,
  parseBoneMaskSpec, requireMaskFits, upperBodyMask, upperBodyRoot,
} from '../../src/runtime/overlay/bone-mask.js';
import { upperBodyRig } from '../../src/runtime/controller/upper-body-twist.js';
import { skeletonFrom } from '../helpers/skeletons.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
beforeAll(() => { db = builtinDatabase(); });

const named = (mask: { weights: Float64Array }, names: readonly string[]) =>
  Object.fromEntries(names.map((n, j) => [n, mask.weights[j]]).filter(([, w]) => (w as number) > 0));

describe('bone masks from the roles', () => {
  it('the upper body is the spine and everything on it, never the hips or the legs', () => {
    const names = db.skeleton.names;
    const m = upperBodyMask(db);
    expect(names[upperBodyRoot(db)]).toBe('spine_01');
    expect(upperBodyRoot(db)).toBe(upperBodyRig(db).chain[0]); // the joint orientation warping turns first
    const on = Object.keys(named(m, names)).sort();
    expect(on).toEqual(['clavicle_l', 'clavicle_r', 'hand_l', 'hand_r', 'head', 'lowerarm_l', 'lowerarm_r', 'neck', 'spine_01', 'spine_02', 'spine_03', 'upperarm_l', 'upperarm_r'].sort());
    for (const j of m.joints) expect(m.weights[j]).toBe(1);
    expect(maskSparesLegs(m, db)).toBe(true);
    expect(m.label).toBe('upper body (spine_01)');
    expect(Array.from(m.joints)).toEqual([...m.joints].sort((a, b) => a - b));
  });

  it('a falloff ramps the weight up over the first joints below the root', () => {
    const m = upperBodyMask(db, { falloff: 2 });
    const w = named(m, db.skeleton.names);
    expect(w.spine_01).toBeCloseTo(1 / 3, 15);
    expect(w.spine_02).toBeCloseTo(2 / 3, 15);
    expect(w.spine_03).toBe(1);
    expect(w.clavicle_l).toBe(1);
    expect(w.hand_r).toBe(1);
  });

  it('the arms start at the first sided joint below a centred one', () => {
    const m = armsMask(db);
    expect(Object.keys(named(m, db.skeleton.names)).sort()).toEqual(['clavicle_l', 'clavicle_r', 'hand_l', 'hand_r', 'lowerarm_l', 'lowerarm_r', 'upperarm_l', 'upperarm_r']);
    expect(maskSparesLegs(m, db)).toBe(true);
    const f = armsMask(db, { falloff: 1 });
    expect(f.weights[db.skeleton.names.indexOf('clavicle_l')]).toBe(0.5);
    expect(f.weights[db.skeleton.names.indexOf('upperarm_l')]).toBe(1);
  });

  it('works on a rig named another way (the capture convention)', () => {
    const sk = skeletonFrom([
      ['joint_Root', null], ['Hips', 'joint_Root'], ['Spine', 'Hips'], ['Chest', 'Spine'], ['Neck', 'Chest'], ['Head', 'Neck'],
      ['Shoulder_L', 'Chest'], ['UpperArm_L', 'Shoulder_L'], ['Shoulder_R', 'Chest'], ['UpperArm_R', 'Shoulder_R'],
      ['UpperLeg_L', 'Hips'], ['LowerLeg_L', 'UpperLeg_L'], ['Foot_L', 'LowerLeg_L'], ['UpperLeg_R', 'Hips'], ['LowerLeg_R', 'UpperLeg_R'], ['Foot_R', 'LowerLeg_R'],
    ]);
    const rig = { skeleton: sk, roles: { hips: 1, leftFoot: 12, rightFoot: 15, leftToe: -1, rightToe: -1 } };
    expect(sk.names[upperBodyRoot(rig)]).toBe('Spine');
    expect(Object.keys(named(armsMask(rig), sk.names))).toEqual(['Shoulder_L', 'UpperArm_L', 'Shoulder_R', 'UpperArm_R']);
    expect(maskSparesLegs(upperBodyMask(rig), rig)).toBe(true);
    expect(maskSparesLegs(boneMaskFromSubtree(sk, 'Hips'), rig)).toBe(false);
    expect(maskSparesLegs(boneMaskFromSubtree(sk, 'joint_Root'), rig)).toBe(false);
  });
});

describe('bone masks by name', () => {
  it('subtrees, several roots, exclusions', () => {
    const names = db.skeleton.names;
    expect(Object.keys(named(boneMaskFromSubtree(db.skeleton, 'clavicle_r'), names))).toEqual(['clavicle_r', 'upperarm_r', 'lowerarm_r', 'hand_r']);
    const two = boneMaskFromSubtree(db.skeleton, ['hand_l', 'hand_r']);
    expect(Object.keys(named(two, names))).toEqual(['hand_l', 'hand_r']);
    const cut = boneMaskFromSubtree(db.skeleton, 'spine_01', { exclude: ['clavicle_l', 'neck'] });
    expect(Object.keys(named(cut, names)).sort()).toEqual(['clavicle_r', 'hand_r', 'lowerarm_r', 'spine_01', 'spine_02', 'spine_03', 'upperarm_r']);
    expect(boneMaskFromSubtree(db.skeleton, 'spine_01', { falloff: 1 }).label).toBe('spine_01 falloff 1');
  });

  it('explicit weights, and finished weight arrays', () => {
    const m = boneMaskFromWeights(db.skeleton, { head: 0.5, neck: 1 });
    expect(named(m, db.skeleton.names)).toEqual({ neck: 1, head: 0.5 });
    const a = boneMaskFromWeightArray(db.skeleton, db.skeleton.names.map((n) => (n === 'hand_l' ? 0.25 : 0)));
    expect(Array.from(a.joints)).toEqual([db.skeleton.names.indexOf('hand_l')]);
  });

  it('unknown joints are errors that name every one of them, and some of the joints there are', () => {
    const e = (() => { try { boneMaskFromSubtree(db.skeleton, ['Spine', 'spine_01', 'Chest']); } catch (err) { return err as Error; } return null; })();
    expect(e).toBeInstanceOf(BoneMaskError);
    expect(e!.message).toMatch(/no joint named 'Spine', 'Chest' in this skeleton \(joints: pelvis, spine_01/);
    expect(e!.message).not.toMatch(/\n/);
    expect(() => boneMaskFromWeights(db.skeleton, { Head: 1 })).toThrow(/'Head'/);
    expect(() => boneMaskFromSubtree(db.skeleton, 'spine_01', { exclude: ['Neck'] })).toThrow(/exclude: no joint named 'Neck'/);
    expect(() => boneMaskFromSubtree(db.skeleton, [])).toThrow(/at least one joint/);
  });

  it('weights and falloffs are checked', () => {
    expect(() => boneMaskFromWeights(db.skeleton, { head: 1.5 })).toThrow(/weight of head must be in \[0, 1\], got 1.5/);
    expect(() => boneMaskFromWeights(db.skeleton, { head: Number.NaN })).toThrow(/got NaN/);
    expect(() => boneMaskFromWeightArray(db.skeleton, [1, 0])).toThrow(/2 weights for a skeleton of 22 joints/);
    expect(() => upperBodyMask(db, { falloff: 1.5 })).toThrow(/falloff must be an integer/);
    expect(() => boneMaskFromSubtree(db.skeleton, 'neck', { falloff: -1 })).toThrow(/falloff/);
  });

  it('a mask only fits the skeleton it was made for', () => {
    const other = skeletonFrom([['a', null], ['b', 'a']]);
    expect(() => requireMaskFits(upperBodyMask(db), other, 'overlay')).toThrow(/overlay: the bone mask was made for another skeleton/);
    expect(() => requireMaskFits(upperBodyMask(db), db.skeleton, 'overlay')).not.toThrow();
  });
});

describe('mask specifications (command lines)', () => {
  it('upper, arms, subtrees and weights, each with its falloff', () => {
    const names = db.skeleton.names;
    expect(parseBoneMaskSpec('upper', db).weights).toEqual(upperBodyMask(db).weights);
    expect(parseBoneMaskSpec('upper:2', db).weights).toEqual(upperBodyMask(db, { falloff: 2 }).weights);
    expect(parseBoneMaskSpec(' arms ', db).weights).toEqual(armsMask(db).weights);
    expect(parseBoneMaskSpec('clavicle_l,clavicle_r:1', db).weights).toEqual(boneMaskFromSubtree(db.skeleton, ['clavicle_l', 'clavicle_r'], { falloff: 1 }).weights);
    expect(named(parseBoneMaskSpec('head=0.5, neck=1', db), names)).toEqual({ neck: 1, head: 0.5 });
  });

  it('mistakes are one-line errors', () => {
    expect(() => parseBoneMaskSpec('', db)).toThrow(/empty specification \(expected upper/);
    expect(() => parseBoneMaskSpec('head=', db)).toThrow(/expected NAME=WEIGHT, got 'head='/);
    expect(() => parseBoneMaskSpec('head=x', db)).toThrow(/NAME=WEIGHT/);
    expect(() => parseBoneMaskSpec('neck,,head', db)).toThrow(/empty joint name/);
    expect(() => parseBoneMaskSpec('Upper', db)).toThrow(/no joint named 'Upper'/);
  });
});

describe('properties', () => {
  it('on random trees: weights in [0, 1], zero outside the subtrees, never decreasing down a chain inside them', () => {
    fc.assert(fc.property(
      fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), fc.nat({ max: 6 }), fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
      (parentPicks, falloff, rootPicks) => {
        const J = parentPicks.length + 1;
        const rows: Array<[string, string | null]> = [['j0', null]];
        parentPicks.forEach((p, i) => rows.push([`j${i + 1}`, `j${p % (i + 1)}`]));
        const sk = skeletonFrom(rows);
        const roots = [...new Set(rootPicks.map((r) => r % J))];
        const m = boneMaskFromSubtree(sk, roots.map((r) => `j${r}`), { falloff });
        const under = (j: number) => { for (let a = j; a >= 0; a = sk.parents[a]) if (roots.includes(a)) return true; return false; };
        for (let j = 0; j < J; j++) {
          const w = m.weights[j];
          expect(w >= 0 && w <= 1).toBe(true);
          if (!under(j)) expect(w).toBe(0);
          else expect(w).toBeGreaterThan(0);
          const p = sk.parents[j];
          if (p >= 0 && under(p) && under(j)) expect(w).toBeGreaterThanOrEqual(m.weights[p]);
          if (roots.includes(j) && (sk.parents[j] < 0 || !under(sk.parents[j]))) expect(w).toBeCloseTo(Math.min(1, 1 / (falloff + 1)), 15);
        }
        expect(Array.from(m.joints)).toEqual(Array.from({ length: J }, (_, j) => j).filter((j) => m.weights[j] > 0));
      },
    ), { numRuns: 200 });
  });
});
