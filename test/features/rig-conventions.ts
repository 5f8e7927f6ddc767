/**
 * One humanoid skeleton per joint-naming convention found in the wild, with a T-pose rest (metres,
 * Y up, facing +Z, so the character's left is +X) and the bone roles a user expects. Used by the
 * role tests and by the build tests (every convention must build without --bones).
 */
import type { Skeleton } from '../../src/anim/skeleton.js';
import type { Clip } from '../../src/anim/clip.js';
import { quatFromEulerOrder } from '../../src/math/quat.js';

type V3 = [number, number, number];

/** A joint row: name, parent name (null for the root), rest offset. */
export type Row = [string, string | null, V3];

export interface RigConvention {
  label: string;
  rows: Row[];
  expect: { hips: string; leftFoot: string; rightFoot: string; leftToe: string | null; rightToe: string | null };
}

/** Names of one side's leg and arm, given a function from the part to its name. */
interface Names {
  root?: string; hips: string; spine: string[]; neck?: string; head?: string;
  /** Joints between the hips and each thigh (CMU's LHipJoint, Daz's lButtock), per side. */
  hipLink?: (side: 'L' | 'R') => string;
  thigh: (side: 'L' | 'R') => string; knee: (side: 'L' | 'R') => string; foot: (side: 'L' | 'R') => string;
  toe?: (side: 'L' | 'R') => string; toeEnd?: (side: 'L' | 'R') => string;
  shoulder?: (side: 'L' | 'R') => string; arm: (side: 'L' | 'R') => string; forearm: (side: 'L' | 'R') => string; hand: (side: 'L' | 'R') => string;
  /** Parent of the thighs when not the hips (3ds Max biped exports hang them from the spine). */
  thighParent?: string;
}

/** Rows of a T-pose humanoid with the given names (left = +X, forward = +Z, metres). */
export function humanoidRows(n: Names): Row[] {
  const rows: Row[] = [];
  if (n.root) rows.push([n.root, null, [0, 0, 0]]);
  rows.push([n.hips, n.root ?? null, [0, 0.95, 0]]);
  let prev = n.hips;
  n.spine.forEach((name, i) => { rows.push([name, prev, [0, i === 0 ? 0.1 : 0.15, 0]]); prev = name; });
  const chest = prev;
  if (n.neck) { rows.push([n.neck, chest, [0, 0.15, 0]]); if (n.head) rows.push([n.head, n.neck, [0, 0.12, 0]]); }
  for (const side of ['L', 'R'] as const) {
    const x = side === 'L' ? 1 : -1;
    let armParent = chest;
    if (n.shoulder) { rows.push([n.shoulder(side), chest, [0.05 * x, 0.12, 0]]); armParent = n.shoulder(side); }
    rows.push([n.arm(side), armParent, [0.12 * x, 0, 0]]);
    rows.push([n.forearm(side), n.arm(side), [0.28 * x, 0, 0]]);
    rows.push([n.hand(side), n.forearm(side), [0.25 * x, 0, 0]]);
    let legParent = n.thighParent ?? n.hips;
    // Thighs hung from a spine joint sit below it by the spine's height.
    const thighOffset: V3 = [0.09 * x, n.thighParent ? -0.15 : -0.05, 0];
    if (n.hipLink) { rows.push([n.hipLink(side), legParent, [0, 0, 0]]); legParent = n.hipLink(side); }
    rows.push([n.thigh(side), legParent, thighOffset]);
    rows.push([n.knee(side), n.thigh(side), [0, -0.42, 0.01]]);
    rows.push([n.foot(side), n.knee(side), [0, -0.42, -0.03]]);
    if (n.toe) {
      rows.push([n.toe(side), n.foot(side), [0, -0.05, 0.13]]);
      if (n.toeEnd) rows.push([n.toeEnd(side), n.toe(side), [0, 0, 0.05]]);
    }
  }
  return rows;
}

const LR = (side: 'L' | 'R', left: string, right: string): string => (side === 'L' ? left : right);
const word = (side: 'L' | 'R'): string => LR(side, 'Left', 'Right');
const lower = (side: 'L' | 'R'): string => LR(side, 'l', 'r');

/** Expected roles from a Names (the foot and toe of each side, the hips). */
function expected(n: Names, hips = n.hips): RigConvention['expect'] {
  return { hips, leftFoot: n.foot('L'), rightFoot: n.foot('R'), leftToe: n.toe ? n.toe('L') : null, rightToe: n.toe ? n.toe('R') : null };
}

function convention(label: string, n: Names, hips?: string): RigConvention {
  return { label, rows: humanoidRows(n), expect: expected(n, hips) };
}

export const RIG_CONVENTIONS: RigConvention[] = [
  convention('one-letter camelCase prefixes (lHip, lKnee, lAnkle, rToeJoint)', {
    hips: 'pelvis', spine: ['spine', 'chest'], neck: 'neck', head: 'head',
    thigh: (s) => `${lower(s)}Hip`, knee: (s) => `${lower(s)}Knee`, foot: (s) => `${lower(s)}Ankle`, toe: (s) => `${lower(s)}ToeJoint`, toeEnd: (s) => `${lower(s)}ToeJoint_end`,
    arm: (s) => `${lower(s)}Shoulder`, forearm: (s) => `${lower(s)}Elbow`, hand: (s) => `${lower(s)}Wrist`,
  }),
  convention('Mixamo / HumanIK (LeftUpLeg, LeftLeg, LeftFoot, LeftToeBase, LeftToe_End)', {
    hips: 'Hips', spine: ['Spine', 'Spine1', 'Spine2'], neck: 'Neck', head: 'Head',
    thigh: (s) => `${word(s)}UpLeg`, knee: (s) => `${word(s)}Leg`, foot: (s) => `${word(s)}Foot`, toe: (s) => `${word(s)}ToeBase`, toeEnd: (s) => `${word(s)}Toe_End`,
    shoulder: (s) => `${word(s)}Shoulder`, arm: (s) => `${word(s)}Arm`, forearm: (s) => `${word(s)}ForeArm`, hand: (s) => `${word(s)}Hand`,
  }),
  convention('mixamorig: namespace', {
    hips: 'mixamorig:Hips', spine: ['mixamorig:Spine', 'mixamorig:Spine1'], neck: 'mixamorig:Neck', head: 'mixamorig:Head',
    thigh: (s) => `mixamorig:${word(s)}UpLeg`, knee: (s) => `mixamorig:${word(s)}Leg`, foot: (s) => `mixamorig:${word(s)}Foot`,
    toe: (s) => `mixamorig:${word(s)}ToeBase`, toeEnd: (s) => `mixamorig:${word(s)}Toe_End`,
    arm: (s) => `mixamorig:${word(s)}Arm`, forearm: (s) => `mixamorig:${word(s)}ForeArm`, hand: (s) => `mixamorig:${word(s)}Hand`,
  }),
  convention('LaFAN1 (LeftUpLeg, LeftLeg, LeftFoot, LeftToe)', {
    hips: 'Hips', spine: ['Spine', 'Spine1', 'Spine2'], neck: 'Neck', head: 'Head',
    thigh: (s) => `${word(s)}UpLeg`, knee: (s) => `${word(s)}Leg`, foot: (s) => `${word(s)}Foot`, toe: (s) => `${word(s)}Toe`,
    shoulder: (s) => `${word(s)}Shoulder`, arm: (s) => `${word(s)}Arm`, forearm: (s) => `${word(s)}ForeArm`, hand: (s) => `${word(s)}Hand`,
  }),
  convention('LeftHip, LeftKnee, LeftAnkle, LeftToe', {
    hips: 'Hips', spine: ['Chest', 'Chest2'], neck: 'Neck', head: 'Head',
    thigh: (s) => `${word(s)}Hip`, knee: (s) => `${word(s)}Knee`, foot: (s) => `${word(s)}Ankle`, toe: (s) => `${word(s)}Toe`,
    shoulder: (s) => `${word(s)}Collar`, arm: (s) => `${word(s)}Shoulder`, forearm: (s) => `${word(s)}Elbow`, hand: (s) => `${word(s)}Wrist`,
  }),
  convention('Blender dot suffixes (thigh.L, shin.L, foot.L, toe.L)', {
    hips: 'hips', spine: ['spine', 'chest'], neck: 'neck', head: 'head',
    thigh: (s) => `thigh.${s}`, knee: (s) => `shin.${s}`, foot: (s) => `foot.${s}`, toe: (s) => `toe.${s}`,
    shoulder: (s) => `shoulder.${s}`, arm: (s) => `upper_arm.${s}`, forearm: (s) => `forearm.${s}`, hand: (s) => `hand.${s}`,
  }),
  {
    label: 'Unreal (root, pelvis, thigh_l, calf_l, foot_l, ball_l) with an IK foot decoy under the root',
    rows: [
      ...humanoidRows({
        root: 'root', hips: 'pelvis', spine: ['spine_01', 'spine_02', 'spine_03'], neck: 'neck_01', head: 'head',
        thigh: (s) => `thigh_${lower(s)}`, knee: (s) => `calf_${lower(s)}`, foot: (s) => `foot_${lower(s)}`, toe: (s) => `ball_${lower(s)}`,
        shoulder: (s) => `clavicle_${lower(s)}`, arm: (s) => `upperarm_${lower(s)}`, forearm: (s) => `lowerarm_${lower(s)}`, hand: (s) => `hand_${lower(s)}`,
      }),
      ['ik_foot_root', 'root', [0, 0, 0]], ['ik_foot_l', 'ik_foot_root', [0.1, 0.08, 0]], ['ik_foot_r', 'ik_foot_root', [-0.1, 0.08, 0]],
    ],
    expect: { hips: 'pelvis', leftFoot: 'foot_l', rightFoot: 'foot_r', leftToe: 'ball_l', rightToe: 'ball_r' },
  },
  convention('L_Foot prefixes (L_Thigh, L_Calf, L_Foot, L_Toe)', {
    hips: 'Pelvis', spine: ['Spine1', 'Spine2'], neck: 'Neck', head: 'Head',
    thigh: (s) => `${s}_Thigh`, knee: (s) => `${s}_Calf`, foot: (s) => `${s}_Foot`, toe: (s) => `${s}_Toe`,
    arm: (s) => `${s}_UpperArm`, forearm: (s) => `${s}_Forearm`, hand: (s) => `${s}_Hand`,
  }),
  convention('Foot_L suffixes under a ground root (the shared data: joint_Root, Hips, UpperLeg_L, Toes_L)', {
    root: 'joint_Root', hips: 'Hips', spine: ['Spine', 'Chest'], neck: 'Neck', head: 'Head',
    thigh: (s) => `UpperLeg_${s}`, knee: (s) => `LowerLeg_${s}`, foot: (s) => `Foot_${s}`, toe: (s) => `Toes_${s}`,
    shoulder: (s) => `Shoulder_${s}`, arm: (s) => `UpperArm_${s}`, forearm: (s) => `LowerArm_${s}`, hand: (s) => `Hand_${s}`,
  }),
  convention('ankle_l suffixes without toes (hip_l, knee_l, ankle_l)', {
    hips: 'pelvis', spine: ['torso'], neck: 'neck', head: 'head',
    thigh: (s) => `hip_${lower(s)}`, knee: (s) => `knee_${lower(s)}`, foot: (s) => `ankle_${lower(s)}`,
    arm: (s) => `shoulder_${lower(s)}`, forearm: (s) => `elbow_${lower(s)}`, hand: (s) => `wrist_${lower(s)}`,
  }),
  convention('Daz / CMU Daz-friendly (hip, abdomen, lButtock, lThigh, lShin, lFoot, no toes)', {
    hips: 'hip', spine: ['abdomen', 'chest'], neck: 'neck', head: 'head',
    hipLink: (s) => `${lower(s)}Buttock`, thigh: (s) => `${lower(s)}Thigh`, knee: (s) => `${lower(s)}Shin`, foot: (s) => `${lower(s)}Foot`,
    shoulder: (s) => `${lower(s)}Collar`, arm: (s) => `${lower(s)}Shldr`, forearm: (s) => `${lower(s)}ForeArm`, hand: (s) => `${lower(s)}Hand`,
  }),
  {
    label: 'Daz Genesis (hip above pelvis and abdomenLower; lThighBend, lShin, lFoot, lToe)',
    rows: (() => {
      const rows = humanoidRows({
        hips: 'hip', spine: ['abdomenLower', 'abdomenUpper', 'chestLower'], neck: 'neckLower', head: 'head',
        thighParent: 'pelvis',
        thigh: (s) => `${lower(s)}ThighBend`, knee: (s) => `${lower(s)}Shin`, foot: (s) => `${lower(s)}Foot`, toe: (s) => `${lower(s)}Toe`,
        shoulder: (s) => `${lower(s)}Collar`, arm: (s) => `${lower(s)}ShldrBend`, forearm: (s) => `${lower(s)}ForearmBend`, hand: (s) => `${lower(s)}Hand`,
      });
      // pelvis: a child of the hip beside the spine, holding the thighs.
      const at = rows.findIndex((r) => r[0] === 'abdomenLower');
      rows.splice(at, 0, ['pelvis', 'hip', [0, 0.1, 0]]);
      return rows;
    })(),
    expect: { hips: 'pelvis', leftFoot: 'lFoot', rightFoot: 'rFoot', leftToe: 'lToe', rightToe: 'rToe' },
  },
  convention('3ds Max biped (Bip01 Pelvis, Bip01 L Thigh, Bip01 L Foot, Bip01 L Toe0, Bip01 L Toe0Nub)', {
    root: 'Bip01', hips: 'Bip01 Pelvis', spine: ['Bip01 Spine', 'Bip01 Spine1'], neck: 'Bip01 Neck', head: 'Bip01 Head',
    thigh: (s) => `Bip01 ${s} Thigh`, knee: (s) => `Bip01 ${s} Calf`, foot: (s) => `Bip01 ${s} Foot`, toe: (s) => `Bip01 ${s} Toe0`, toeEnd: (s) => `Bip01 ${s} Toe0Nub`,
    shoulder: (s) => `Bip01 ${s} Clavicle`, arm: (s) => `Bip01 ${s} UpperArm`, forearm: (s) => `Bip01 ${s} Forearm`, hand: (s) => `Bip01 ${s} Hand`,
  }),
  convention('3ds Max biped with the thighs hung from Bip01 Spine', {
    root: 'Bip01', hips: 'Bip01 Pelvis', spine: ['Bip01 Spine', 'Bip01 Spine1'], neck: 'Bip01 Neck', head: 'Bip01 Head', thighParent: 'Bip01 Spine',
    thigh: (s) => `Bip01 ${s} Thigh`, knee: (s) => `Bip01 ${s} Calf`, foot: (s) => `Bip01 ${s} Foot`, toe: (s) => `Bip01 ${s} Toe0`, toeEnd: (s) => `Bip01 ${s} Toe0Nub`,
    arm: (s) => `Bip01 ${s} UpperArm`, forearm: (s) => `Bip01 ${s} Forearm`, hand: (s) => `Bip01 ${s} Hand`,
  }, 'Bip01 Spine'),
  convention('CMU (LHipJoint, LeftUpLeg, LeftLeg, LeftFoot, LeftToeBase, LowerBack)', {
    hips: 'Hips', spine: ['LowerBack', 'Spine', 'Spine1'], neck: 'Neck', head: 'Head',
    hipLink: (s) => `${s}HipJoint`, thigh: (s) => `${word(s)}UpLeg`, knee: (s) => `${word(s)}Leg`, foot: (s) => `${word(s)}Foot`, toe: (s) => `${word(s)}ToeBase`,
    shoulder: (s) => `${word(s)}Shoulder`, arm: (s) => `${word(s)}Arm`, forearm: (s) => `${word(s)}ForeArm`, hand: (s) => `${word(s)}Hand`,
  }),
  convention('CMU ASF names, one-letter sides glued on (root, lhipjoint, lfemur, ltibia, lfoot, ltoes, lhumerus)', {
    hips: 'root', spine: ['lowerback', 'upperback', 'thorax'], neck: 'lowerneck', head: 'head',
    hipLink: (s) => `${lower(s)}hipjoint`, thigh: (s) => `${lower(s)}femur`, knee: (s) => `${lower(s)}tibia`, foot: (s) => `${lower(s)}foot`, toe: (s) => `${lower(s)}toes`,
    shoulder: (s) => `${lower(s)}clavicle`, arm: (s) => `${lower(s)}humerus`, forearm: (s) => `${lower(s)}radius`, hand: (s) => `${lower(s)}hand`,
  }),
  convention('all lower-case glued sides (leftupleg, leftleg, leftfoot, lefttoe)', {
    hips: 'hips', spine: ['spine', 'spine1'], neck: 'neck', head: 'head',
    thigh: (s) => `${word(s).toLowerCase()}upleg`, knee: (s) => `${word(s).toLowerCase()}leg`, foot: (s) => `${word(s).toLowerCase()}foot`, toe: (s) => `${word(s).toLowerCase()}toe`,
    arm: (s) => `${word(s).toLowerCase()}arm`, forearm: (s) => `${word(s).toLowerCase()}forearm`, hand: (s) => `${word(s).toLowerCase()}hand`,
  }),
  convention('odd names with sides (BoneA_L ... BoneD_L): the legs found by shape, sides by name', {
    hips: 'Body', spine: ['Torso1', 'Torso2'], neck: 'Nape', head: 'Skull',
    thigh: (s) => `BoneA_${s}`, knee: (s) => `BoneB_${s}`, foot: (s) => `BoneC_${s}`, toe: (s) => `BoneD_${s}`,
    arm: (s) => `Wing1_${s}`, forearm: (s) => `Wing2_${s}`, hand: (s) => `Wing3_${s}`,
  }),
  convention('names that say nothing (Bone.000 ...): hips, legs, sides and toes from the rest pose', {
    hips: 'Bone', spine: ['Bone.001', 'Bone.002'], neck: 'Bone.003', head: 'Bone.004',
    thigh: (s) => LR(s, 'Bone.010', 'Bone.020'), knee: (s) => LR(s, 'Bone.011', 'Bone.021'), foot: (s) => LR(s, 'Bone.012', 'Bone.022'), toe: (s) => LR(s, 'Bone.013', 'Bone.023'),
    arm: (s) => LR(s, 'Bone.030', 'Bone.040'), forearm: (s) => LR(s, 'Bone.031', 'Bone.041'), hand: (s) => LR(s, 'Bone.032', 'Bone.042'),
  }),
];

/** A skeleton from rows (parents listed first). */
export function skeletonOfRows(rows: readonly Row[]): Skeleton {
  const names = rows.map((r) => r[0]);
  const parents = new Int32Array(rows.map((r) => (r[1] === null ? -1 : names.indexOf(r[1]))));
  if (parents.some((p, i) => i > 0 && (p < 0 || p >= i))) throw new Error('rows must list parents first');
  return { names, parents, offsets: new Float64Array(rows.flatMap((r) => r[2])), endSiteParents: new Int32Array(0), endSiteOffsets: new Float64Array(0) };
}

/** The same skeleton turned half a turn about +Y (facing -Z, left = -X). */
export function turnedHalf(rows: readonly Row[]): Row[] {
  return rows.map(([n, p, [x, y, z]]) => [n, p, [-x, y, -z]]);
}

/**
 * A walk-like clip for a skeleton: the hips travel forward (+Z) at 1.2 m/s while every joint
 * swings a little about X, out of phase left and right.
 */
export function walkClip(s: Skeleton, name: string, seconds = 2, fps = 30): Clip {
  const J = s.names.length, frames = Math.round(seconds * fps) + 1;
  const rotations = new Float64Array(frames * J * 4), translations = new Float64Array(frames * J * 3);
  const q = [0, 0, 0, 1];
  for (let f = 0; f < frames; f++) {
    const t = f / fps;
    for (let j = 0; j < J; j++) {
      const phase = /(^|[^a-z])(l|left)([^a-z]|$)|Left|\.L$|_L$|_l$| L /.test(s.names[j]) ? 0 : Math.PI;
      quatFromEulerOrder(q, 0, [0.25 * Math.sin(2 * Math.PI * 1.8 * t + phase), 0, 0], 'XYZ');
      rotations.set(q, (f * J + j) * 4);
      translations.set(s.offsets.subarray(3 * j, 3 * j + 3), (f * J + j) * 3);
    }
    translations[f * J * 3 + 2] += 1.2 * t; // the root carries the travel
  }
  return { name, source: `${name}.bvh`, fps, frameCount: frames, rotations, translations, loop: false, tags: [] };
}
