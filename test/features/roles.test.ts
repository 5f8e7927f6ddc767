import { describe, it, expect } from 'vitest';
import { findBoneRoles, BoneRoleError, nameTokens, parseBoneOverrides, mirrorJointMap, swapSideInName } from '../../src/features/roles.js';
import { skeletonFrom } from '../helpers/skeletons.js';

type Conv = { label: string; rows: Array<[string, string | null]>; expect: Record<string, string | null> };

const conventions: Conv[] = [
  {
    label: 'Bandai (Hips, Foot_L, Toes_L under a joint_Root)',
    rows: [['joint_Root', null], ['Hips', 'joint_Root'], ['UpperLeg_L', 'Hips'], ['LowerLeg_L', 'UpperLeg_L'], ['Foot_L', 'LowerLeg_L'], ['Toes_L', 'Foot_L'],
      ['UpperLeg_R', 'Hips'], ['LowerLeg_R', 'UpperLeg_R'], ['Foot_R', 'LowerLeg_R'], ['Toes_R', 'Foot_R']],
    expect: { hips: 'Hips', leftFoot: 'Foot_L', rightFoot: 'Foot_R', leftToe: 'Toes_L', rightToe: 'Toes_R' },
  },
  {
    label: 'CMU (LeftFoot, LeftToeBase, LHipJoint)',
    rows: [['Hips', null], ['LHipJoint', 'Hips'], ['LeftUpLeg', 'LHipJoint'], ['LeftLeg', 'LeftUpLeg'], ['LeftFoot', 'LeftLeg'], ['LeftToeBase', 'LeftFoot'],
      ['RHipJoint', 'Hips'], ['RightUpLeg', 'RHipJoint'], ['RightLeg', 'RightUpLeg'], ['RightFoot', 'RightLeg'], ['RightToeBase', 'RightFoot']],
    expect: { hips: 'Hips', leftFoot: 'LeftFoot', rightFoot: 'RightFoot', leftToe: 'LeftToeBase', rightToe: 'RightToeBase' },
  },
  {
    label: 'Mixamo (namespace prefix, ToeBase and Toe_End)',
    rows: [['mixamorig:Hips', null], ['mixamorig:LeftUpLeg', 'mixamorig:Hips'], ['mixamorig:LeftLeg', 'mixamorig:LeftUpLeg'], ['mixamorig:LeftFoot', 'mixamorig:LeftLeg'],
      ['mixamorig:LeftToeBase', 'mixamorig:LeftFoot'], ['mixamorig:LeftToe_End', 'mixamorig:LeftToeBase'],
      ['mixamorig:RightUpLeg', 'mixamorig:Hips'], ['mixamorig:RightLeg', 'mixamorig:RightUpLeg'], ['mixamorig:RightFoot', 'mixamorig:RightLeg'],
      ['mixamorig:RightToeBase', 'mixamorig:RightFoot'], ['mixamorig:RightToe_End', 'mixamorig:RightToeBase']],
    expect: { hips: 'mixamorig:Hips', leftFoot: 'mixamorig:LeftFoot', rightFoot: 'mixamorig:RightFoot', leftToe: 'mixamorig:LeftToeBase', rightToe: 'mixamorig:RightToeBase' },
  },
  {
    label: 'Unreal (pelvis, foot_l, ball_l)',
    rows: [['root', null], ['pelvis', 'root'], ['thigh_l', 'pelvis'], ['calf_l', 'thigh_l'], ['foot_l', 'calf_l'], ['ball_l', 'foot_l'],
      ['thigh_r', 'pelvis'], ['calf_r', 'thigh_r'], ['foot_r', 'calf_r'], ['ball_r', 'foot_r']],
    expect: { hips: 'pelvis', leftFoot: 'foot_l', rightFoot: 'foot_r', leftToe: 'ball_l', rightToe: 'ball_r' },
  },
  {
    label: '3ds Max Biped (Bip01 L Foot, Bip01 L Toe0)',
    rows: [['Bip01', null], ['Bip01 Pelvis', 'Bip01'], ['Bip01 L Thigh', 'Bip01 Pelvis'], ['Bip01 L Calf', 'Bip01 L Thigh'], ['Bip01 L Foot', 'Bip01 L Calf'], ['Bip01 L Toe0', 'Bip01 L Foot'],
      ['Bip01 R Thigh', 'Bip01 Pelvis'], ['Bip01 R Calf', 'Bip01 R Thigh'], ['Bip01 R Foot', 'Bip01 R Calf'], ['Bip01 R Toe0', 'Bip01 R Foot']],
    expect: { hips: 'Bip01 Pelvis', leftFoot: 'Bip01 L Foot', rightFoot: 'Bip01 R Foot', leftToe: 'Bip01 L Toe0', rightToe: 'Bip01 R Toe0' },
  },
  {
    label: 'lower-case prefixes with ankles and no toes (l_ankle)',
    rows: [['pelvis', null], ['l_hip', 'pelvis'], ['l_knee', 'l_hip'], ['l_ankle', 'l_knee'], ['r_hip', 'pelvis'], ['r_knee', 'r_hip'], ['r_ankle', 'r_knee']],
    expect: { hips: 'pelvis', leftFoot: 'l_ankle', rightFoot: 'r_ankle', leftToe: null, rightToe: null },
  },
  {
    label: 'DAZ camel-case prefixes (lFoot, lToe)',
    rows: [['hip', null], ['pelvis', 'hip'], ['lThigh', 'pelvis'], ['lShin', 'lThigh'], ['lFoot', 'lShin'], ['lToe', 'lFoot'],
      ['rThigh', 'pelvis'], ['rShin', 'rThigh'], ['rFoot', 'rShin'], ['rToe', 'rFoot']],
    expect: { hips: 'pelvis', leftFoot: 'lFoot', rightFoot: 'rFoot', leftToe: 'lToe', rightToe: 'rToe' },
  },
  {
    label: 'Blender dot suffixes (foot.L, toe.L)',
    rows: [['hips', null], ['thigh.L', 'hips'], ['shin.L', 'thigh.L'], ['foot.L', 'shin.L'], ['toe.L', 'foot.L'],
      ['thigh.R', 'hips'], ['shin.R', 'thigh.R'], ['foot.R', 'shin.R'], ['toe.R', 'foot.R']],
    expect: { hips: 'hips', leftFoot: 'foot.L', rightFoot: 'foot.R', leftToe: 'toe.L', rightToe: 'toe.R' },
  },
];

describe('bone roles by name', () => {
  for (const c of conventions) {
    it(c.label, () => {
      const s = skeletonFrom(c.rows.map(([n, p]) => [n, p]));
      const roles = findBoneRoles(s);
      const named = Object.fromEntries(Object.entries(roles).map(([k, j]) => [k, j >= 0 ? s.names[j] : null]));
      expect(named).toEqual(c.expect);
    });
  }

  it('splits names into words', () => {
    expect(nameTokens('mixamorig:LeftToeBase')).toEqual(['left', 'toe', 'base']);
    expect(nameTokens('Bip01 L Toe0')).toEqual(['bip', 'l', 'toe']);
    expect(nameTokens('lFoot')).toEqual(['l', 'foot']);
    expect(nameTokens('Foot_L')).toEqual(['foot', 'l']);
  });

  it('explains a missing role with the joint names and the --bones option', () => {
    const s = skeletonFrom([['Body', null], ['LegA', 'Body'], ['LegB', 'Body']]);
    let err: unknown;
    try { findBoneRoles(s); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(BoneRoleError);
    const msg = (err as Error).message;
    expect(msg).toContain('hips');
    expect(msg).toContain('Body, LegA, LegB');
    expect(msg).toContain('--bones');
  });

  it('a deep skeleton without hips: one line naming the file and only a few joints', () => {
    const rows: Array<[string, string | null]> = [['j0', null]];
    for (let i = 1; i < 3000; i++) rows.push([`j${i}`, `j${i - 1}`]);
    let err: unknown;
    try { findBoneRoles(skeletonFrom(rows), {}, 'deep.bvh'); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(BoneRoleError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/^deep\.bvh: cannot find the hips bone/);
    expect(msg).not.toContain('\n');
    expect(msg).toContain('j0, j1, j2, j3, j4, j5, j6, j7, ... and 2,992 more');
    expect(msg).toContain('--bones hips=');
    expect(msg.length).toBeLessThan(300);
  });

  it('takes overrides, and rejects overrides naming no joint', () => {
    const s = skeletonFrom([['Body', null], ['LegA', 'Body'], ['LegB', 'Body']]);
    const roles = findBoneRoles(s, parseBoneOverrides('hips=Body,leftFoot=LegA,rightFoot=LegB'));
    expect(roles).toEqual({ hips: 0, leftFoot: 1, rightFoot: 2, leftToe: -1, rightToe: -1 });
    expect(() => findBoneRoles(s, { hips: 'Nope' })).toThrow(/Nope names no joint/);
    expect(() => parseBoneOverrides('hips')).toThrow(/role=NAME/);
    expect(() => parseBoneOverrides('elbow=X')).toThrow(/unknown role/);
  });
});

describe('mirror partners', () => {
  it('swaps sides at word boundaries in every convention', () => {
    expect(swapSideInName('Foot_L')).toBe('Foot_R');
    expect(swapSideInName('LeftToeBase')).toBe('RightToeBase');
    expect(swapSideInName('mixamorig:RightArm')).toBe('mixamorig:LeftArm');
    expect(swapSideInName('Bip01 L Foot')).toBe('Bip01 R Foot');
    expect(swapSideInName('lFoot')).toBe('rFoot');
    expect(swapSideInName('thigh.L')).toBe('thigh.R');
    expect(swapSideInName('foot_l')).toBe('foot_r');
    expect(swapSideInName('LowerLeg_L')).toBe('LowerLeg_R');
    expect(swapSideInName('Hips')).toBe('Hips');
    expect(swapSideInName('leftfoot')).toBe('rightfoot');
  });

  it('maps joints to partners and centre joints to themselves', () => {
    const names = ['Hips', 'UpperLeg_L', 'UpperLeg_R', 'Spine', 'Hand_L', 'Hand_R'];
    expect(Array.from(mirrorJointMap(names))).toEqual([0, 2, 1, 3, 5, 4]);
  });
});
