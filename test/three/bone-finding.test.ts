/** Bone finding by name for the conventions in the wild, and by shape when names say nothing. */
import { describe, expect, it } from 'vitest';
import { findHumanoidBones, boneNameInfo } from '../../src/three/index.js';

/** A legged rig: hips, spine, chest, neck, head, two legs (thigh, knee, foot, toe) with the given names. */
function rig(names: string[]): { names: string[]; parents: Int32Array; rest: Float64Array } {
  const [hips, spine, chest, neck, head, lu, ll, lf, lt, ru, rl, rf, rt] = names;
  const rows: Array<[string, string | null, number[]]> = [
    [hips, null, [0, 1, 0]], [spine, hips, [0, 1.1, 0]], [chest, spine, [0, 1.3, 0]], [neck, chest, [0, 1.5, 0]], [head, neck, [0, 1.6, 0]],
    [lu, hips, [0.1, 0.95, 0]], [ll, lu, [0.1, 0.5, 0]], [lf, ll, [0.1, 0.08, 0]], [lt, lf, [0.1, 0.02, 0.12]],
    [ru, hips, [-0.1, 0.95, 0]], [rl, ru, [-0.1, 0.5, 0]], [rf, rl, [-0.1, 0.08, 0]], [rt, rf, [-0.1, 0.02, 0.12]],
  ];
  const n = rows.map((r) => r[0]);
  return { names: n, parents: Int32Array.from(rows, (r) => (r[1] === null ? -1 : n.indexOf(r[1]))), rest: Float64Array.from(rows.flatMap((r) => r[2])) };
}

const CONVENTIONS: Record<string, string[]> = {
  'mixamo with colon': ['mixamorig:Hips', 'mixamorig:Spine', 'mixamorig:Spine1', 'mixamorig:Neck', 'mixamorig:Head', 'mixamorig:LeftUpLeg', 'mixamorig:LeftLeg', 'mixamorig:LeftFoot', 'mixamorig:LeftToeBase', 'mixamorig:RightUpLeg', 'mixamorig:RightLeg', 'mixamorig:RightFoot', 'mixamorig:RightToeBase'],
  'mixamo without colon': ['mixamorigHips', 'mixamorigSpine', 'mixamorigSpine1', 'mixamorigNeck', 'mixamorigHead', 'mixamorigLeftUpLeg', 'mixamorigLeftLeg', 'mixamorigLeftFoot', 'mixamorigLeftToeBase', 'mixamorigRightUpLeg', 'mixamorigRightLeg', 'mixamorigRightFoot', 'mixamorigRightToeBase'],
  vrm: ['hips', 'spine', 'chest', 'neck', 'head', 'leftUpperLeg', 'leftLowerLeg', 'leftFoot', 'leftToes', 'rightUpperLeg', 'rightLowerLeg', 'rightFoot', 'rightToes'],
  'three-vrm normalized / VRoid': ['Normalized_J_Bip_C_Hips', 'Normalized_J_Bip_C_Spine', 'Normalized_J_Bip_C_Chest', 'Normalized_J_Bip_C_Neck', 'Normalized_J_Bip_C_Head', 'Normalized_J_Bip_L_UpperLeg', 'Normalized_J_Bip_L_LowerLeg', 'Normalized_J_Bip_L_Foot', 'Normalized_J_Bip_L_ToeBase', 'Normalized_J_Bip_R_UpperLeg', 'Normalized_J_Bip_R_LowerLeg', 'Normalized_J_Bip_R_Foot', 'Normalized_J_Bip_R_ToeBase'],
  unreal: ['pelvis', 'spine_01', 'spine_02', 'neck_01', 'head', 'thigh_l', 'calf_l', 'foot_l', 'ball_l', 'thigh_r', 'calf_r', 'foot_r', 'ball_r'],
  'blender / rigify': ['DEF-hips', 'DEF-spine', 'DEF-chest', 'DEF-neck', 'DEF-head', 'DEF-thigh.L', 'DEF-shin.L', 'DEF-foot.L', 'DEF-toe.L', 'DEF-thigh.R', 'DEF-shin.R', 'DEF-foot.R', 'DEF-toe.R'],
  bvh: ['Hips', 'Spine', 'Spine1', 'Neck', 'Head', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'LeftToeBase', 'RightUpLeg', 'RightLeg', 'RightFoot', 'RightToeBase'],
};

describe('three adapter: bone finding', () => {
  for (const [name, names] of Object.entries(CONVENTIONS)) {
    it(`by name: ${name}`, () => {
      const b = findHumanoidBones(rig(names));
      const r = b.roles;
      expect([r.hips, r.leftUpperLeg, r.leftLowerLeg, r.leftFoot, r.leftToes, r.rightUpperLeg, r.rightLowerLeg, r.rightFoot, r.rightToes]).toEqual([0, 5, 6, 7, 8, 9, 10, 11, 12]);
      expect([r.neck, r.head]).toEqual([3, 4]);
      expect(b.spineChain).toEqual([1, 2]);
      expect(b.how.leftFoot).toBe('name');
    });
  }

  it('by shape: legs are the two longest chains down from the hips, sides by where they hang', () => {
    const b = findHumanoidBones(rig(Array.from({ length: 13 }, (_, i) => `Bone.${String(i).padStart(3, '0')}`)));
    expect([b.roles.hips, b.roles.leftFoot, b.roles.rightFoot, b.roles.leftToes]).toEqual([0, 7, 11, 8]);
    expect(b.how.leftFoot).toBe('shape');
  });

  it('helper bones are never limbs', () => {
    for (const n of ['thigh_twist_01_l', 'LeftToe_End', 'HeadTop_End', 'calf_twist_01_r', 'foot_ik_l', 'ik_foot_root']) expect(boneNameInfo(n).part).toBe('helper');
    expect(boneNameInfo('LeftHandIndex1').part).toBe('other');
    expect(boneNameInfo('mixamorigLeftForeArm')).toEqual({ side: 'left', part: 'lowerArm' });
    expect(boneNameInfo('upperarm_r')).toEqual({ side: 'right', part: 'upperArm' });
  });

  it('a user map wins', () => {
    const names = CONVENTIONS.unreal;
    const b = findHumanoidBones(rig(names), { leftFoot: 8 });
    expect(b.roles.leftFoot).toBe(8);
    expect(b.how.leftFoot).toBe('given');
  });
});
