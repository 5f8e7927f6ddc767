/**
 * Characters unlike the capture, made from the built-in skeleton's shape: other names (Mixamo,
 * Unreal, VRM), other proportions (legs 0.8-1.25x, thigh and shin scaled differently), an A-pose,
 * other bone axes (Y or X along the bone, rolled about it), twist bones, end bones, fingers, no
 * toes, centimetre units, a character facing another way.
 */
import { Quaternion, Vector3 } from 'three';
import type { RigBone } from './fixtures.js';

type V3 = [number, number, number];

export interface VariantOptions {
  /** Builtin name -> new name; a name mapped to null is dropped (its children hang from its parent). */
  names: Record<string, string | null>;
  /** Length factor of the bone ending at a joint (by builtin name of the child joint), default 1. */
  scale?: (builtinChild: string) => number;
  /** Arms hang this far below horizontal (radians) and legs spread by legSpread. */
  armDrop?: number;
  legSpread?: number;
  /** Bone axes: 'identity', 'y' (Y along the bone, Mixamo-like) or 'x' (X along the bone). */
  axes?: 'identity' | 'y' | 'x';
  /** Roll of each bone about its own axis (radians) as a function of its index. */
  roll?: (i: number) => number;
  /** Yaw of the whole character (radians; the capture faces +Z). */
  yaw?: number;
  /** Extra bones: [name, parent (new name), fraction along parent->child bone or an offset]. */
  extras?: Array<{ name: string; parent: string; pos: (p: (n: string) => V3) => V3 }>;
}

/** Applies a variant to the database rig (bones in parents-first order). */
export function variantRig(base: RigBone[], o: VariantOptions): RigBone[] {
  const byName = new Map(base.map((b) => [b.name, b]));
  // 1. Proportions: rebuild positions from scaled offsets.
  const pos = new Map<string, Vector3>();
  for (const b of base) {
    const p = b.parent ? pos.get(b.parent)! : new Vector3();
    const off = new Vector3(...b.pos).sub(b.parent ? new Vector3(...byName.get(b.parent)!.pos) : new Vector3());
    pos.set(b.name, p.clone().add(off.multiplyScalar(b.parent ? (o.scale?.(b.name) ?? 1) : 1)));
  }
  // 2. A-pose: swing arms down about +-Z at the upper arm, legs out at the thigh.
  const subtree = (root: string): string[] => { const out = [root]; for (const b of base) if (b.parent && out.includes(b.parent)) out.push(b.name); return out; };
  const swing = (pivot: string, angle: number, axis: Vector3): void => {
    const c = pos.get(pivot)!.clone(), q = new Quaternion().setFromAxisAngle(axis, angle);
    for (const n of subtree(pivot).slice(1)) pos.get(n)!.sub(c).applyQuaternion(q).add(c);
  };
  const Z = new Vector3(0, 0, 1);
  if (o.armDrop) { swing('upperarm_l', -o.armDrop, Z); swing('upperarm_r', o.armDrop, Z); }
  if (o.legSpread) { swing('thigh_l', o.legSpread, Z); swing('thigh_r', -o.legSpread, Z); }
  // 3. Stand on the floor: the lowest foot joint at the capture's own height scaled like the legs.
  const low = Math.min(...['toe_l', 'toe_r', 'foot_l', 'foot_r'].map((n) => pos.get(n)!.y));
  const baseLow = Math.min(...['toe_l', 'toe_r', 'foot_l', 'foot_r'].map((n) => byName.get(n)!.pos[1]));
  const legScale = o.scale?.('foot_l') ?? 1;
  for (const p of pos.values()) p.y += baseLow * legScale - low;
  // 4. Names (dropping some), extras.
  const kept = base.filter((b) => o.names[b.name] !== null);
  const newName = (n: string): string => o.names[n] ?? n;
  const keptParent = (b: RigBone): string | null => { let p = b.parent; while (p !== null && o.names[p] === null) p = byName.get(p)!.parent; return p === null ? null : newName(p); };
  let bones: Array<{ name: string; parent: string | null; pos: Vector3 }> = kept.map((b) => ({ name: newName(b.name), parent: keptParent(b), pos: pos.get(b.name)! }));
  const at = (n: string): V3 => { const b = bones.find((x) => x.name === n)!; return [b.pos.x, b.pos.y, b.pos.z]; };
  for (const e of o.extras ?? []) bones.push({ name: e.name, parent: e.parent, pos: new Vector3(...e.pos(at)) });
  // Parents first again (extras may hang anywhere).
  const ordered: typeof bones = [];
  const add = (parent: string | null): void => { for (const b of bones.filter((x) => x.parent === parent)) { ordered.push(b); add(b.name); } };
  add(null);
  bones = ordered;
  // 5. Bone axes: along the bone to the first child (or the parent's direction for leaves), rolled.
  const yaw = new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), o.yaw ?? 0);
  return bones.map((b, i) => {
    const child = bones.find((x) => x.parent === b.name);
    const parent = bones.find((x) => x.name === b.parent);
    const dir = child ? child.pos.clone().sub(b.pos) : parent ? b.pos.clone().sub(parent.pos) : new Vector3(0, 1, 0);
    if (dir.lengthSq() < 1e-12) dir.set(0, 1, 0);
    dir.normalize();
    const q = new Quaternion();
    if (o.axes === 'y') q.setFromUnitVectors(new Vector3(0, 1, 0), dir);
    else if (o.axes === 'x') q.setFromUnitVectors(new Vector3(1, 0, 0), dir);
    if (o.roll) q.premultiply(new Quaternion().setFromAxisAngle(dir, o.roll(i)));
    q.premultiply(yaw);
    const p = b.pos.clone().applyQuaternion(yaw);
    return { name: b.name, parent: b.parent, pos: [p.x, p.y, p.z] as V3, rot: [q.x, q.y, q.z, q.w] as [number, number, number, number] };
  });
}

const lerp = (a: V3, b: V3, t: number): V3 => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
const plus = (a: V3, d: V3): V3 => [a[0] + d[0], a[1] + d[1], a[2] + d[2]];

const LEG = new Set(['thigh_l', 'calf_l', 'foot_l', 'toe_l', 'thigh_r', 'calf_r', 'foot_r', 'toe_r']);

/** Mixamo: mixamorig: names, Y along the bones, T-pose, legs 1.15x, fingers and end bones (bones in cm under a 0.01 armature). */
export function mixamoRig(base: RigBone[]): RigBone[] {
  const m = (n: string): string => `mixamorig:${n}`;
  const names: Record<string, string> = {
    pelvis: m('Hips'), spine_01: m('Spine'), spine_02: m('Spine1'), spine_03: m('Spine2'), neck: m('Neck'), head: m('Head'),
    clavicle_l: m('LeftShoulder'), upperarm_l: m('LeftArm'), lowerarm_l: m('LeftForeArm'), hand_l: m('LeftHand'),
    clavicle_r: m('RightShoulder'), upperarm_r: m('RightArm'), lowerarm_r: m('RightForeArm'), hand_r: m('RightHand'),
    thigh_l: m('LeftUpLeg'), calf_l: m('LeftLeg'), foot_l: m('LeftFoot'), toe_l: m('LeftToeBase'),
    thigh_r: m('RightUpLeg'), calf_r: m('RightLeg'), foot_r: m('RightFoot'), toe_r: m('RightToeBase'),
  };
  return variantRig(base, {
    names, axes: 'y',
    scale: (n) => (LEG.has(n) ? 1.15 : 1.05),
    extras: [
      { name: m('HeadTop_End'), parent: m('Head'), pos: (p) => plus(p(m('Head')), [0, 0.18, 0]) },
      { name: m('LeftToe_End'), parent: m('LeftToeBase'), pos: (p) => plus(p(m('LeftToeBase')), [0, 0, 0.07]) },
      { name: m('RightToe_End'), parent: m('RightToeBase'), pos: (p) => plus(p(m('RightToeBase')), [0, 0, 0.07]) },
      { name: m('LeftHandIndex1'), parent: m('LeftHand'), pos: (p) => plus(p(m('LeftHand')), [0.09, 0, 0.02]) },
      { name: m('LeftHandIndex2'), parent: m('LeftHandIndex1'), pos: (p) => plus(p(m('LeftHandIndex1')), [0.04, 0, 0]) },
      { name: m('RightHandIndex1'), parent: m('RightHand'), pos: (p) => plus(p(m('RightHand')), [-0.09, 0, 0.02]) },
    ],
  });
}

/**
 * Unreal: pelvis/thigh_l/calf_l/ball_l names under a `root` bone, A-pose (arms 45 degrees down,
 * legs 4 degrees out), X along the bones rolled by a different angle each, twist bones, legs 0.85x
 * with the thigh shorter than the shin (0.8x and 0.92x), facing +X.
 */
export function unrealRig(base: RigBone[]): RigBone[] {
  const names: Record<string, string> = { toe_l: 'ball_l', toe_r: 'ball_r' };
  const thigh = 0.8, calf = 0.92;
  const bones = variantRig(base, {
    names, axes: 'x', roll: (i) => 0.35 + 0.41 * i, armDrop: Math.PI / 4, legSpread: (4 * Math.PI) / 180, yaw: Math.PI / 2,
    scale: (n) => (n === 'calf_l' || n === 'calf_r' ? thigh : n === 'foot_l' || n === 'foot_r' || n === 'toe_l' || n === 'toe_r' ? calf : 1),
    extras: [
      { name: 'thigh_twist_01_l', parent: 'thigh_l', pos: (p) => lerp(p('thigh_l'), p('calf_l'), 0.5) },
      { name: 'thigh_twist_01_r', parent: 'thigh_r', pos: (p) => lerp(p('thigh_r'), p('calf_r'), 0.5) },
      { name: 'calf_twist_01_l', parent: 'calf_l', pos: (p) => lerp(p('calf_l'), p('foot_l'), 0.5) },
      { name: 'calf_twist_01_r', parent: 'calf_r', pos: (p) => lerp(p('calf_r'), p('foot_r'), 0.5) },
      { name: 'upperarm_twist_01_l', parent: 'upperarm_l', pos: (p) => lerp(p('upperarm_l'), p('lowerarm_l'), 0.3) },
      { name: 'index_01_l', parent: 'hand_l', pos: (p) => lerp(p('lowerarm_l'), p('hand_l'), 1.3) },
    ],
  });
  // A root bone on the floor above the pelvis (Unreal's skeleton root).
  const pelvis = bones.find((b) => b.name === 'pelvis')!;
  pelvis.parent = 'root';
  return [{ name: 'root', parent: null, pos: [0, 0, 0], rot: [0, 0, 0, 1] }, ...bones];
}

/** VRM: humanoid names, identity axes, two spine bones, no toes, legs 0.8x, facing -Z (VRM 0.x). */
export function vrmRig(base: RigBone[]): RigBone[] {
  const names: Record<string, string | null> = {
    pelvis: 'hips', spine_01: 'spine', spine_02: null, spine_03: 'chest', neck: 'neck', head: 'head',
    clavicle_l: 'leftShoulder', upperarm_l: 'leftUpperArm', lowerarm_l: 'leftLowerArm', hand_l: 'leftHand',
    clavicle_r: 'rightShoulder', upperarm_r: 'rightUpperArm', lowerarm_r: 'rightLowerArm', hand_r: 'rightHand',
    thigh_l: 'leftUpperLeg', calf_l: 'leftLowerLeg', foot_l: 'leftFoot', toe_l: null,
    thigh_r: 'rightUpperLeg', calf_r: 'rightLowerLeg', foot_r: 'rightFoot', toe_r: null,
  };
  return variantRig(base, { names, axes: 'identity', yaw: Math.PI, scale: (n) => (LEG.has(n) ? 0.8 : 0.9) });
}

const FINGERS = ['Thumb', 'Index', 'Middle', 'Ring', 'Pinky'];

/** Four bones per finger on each hand, spread across the hand (bind positions from the hand's). */
function fingerExtras(hand: (side: 'Left' | 'Right') => string, name: (side: 'Left' | 'Right', finger: string, k: number) => string, bones = 4): NonNullable<VariantOptions['extras']> {
  const out: NonNullable<VariantOptions['extras']> = [];
  for (const side of ['Left', 'Right'] as const) {
    const sign = side === 'Left' ? 1 : -1;
    FINGERS.forEach((f, i) => {
      for (let k = 1; k <= bones; k++) {
        const parent = k === 1 ? hand(side) : name(side, f, k - 1);
        out.push({ name: name(side, f, k), parent, pos: (p) => plus(p(parent), k === 1 ? [sign * 0.08, 0, (i - 2) * 0.018] : [sign * 0.025, 0, 0]) });
      }
    });
  }
  return out;
}

/**
 * Mixamo as Mixamo ships it: 65 bones (the 22 body bones, four per finger with the _End-like
 * fourth, HeadTop_End and two Toe_End), Y along the bones, T-pose, cm under a 0.01 armature, legs 1.1x.
 */
export function mixamo65Rig(base: RigBone[]): RigBone[] {
  const m = (n: string): string => `mixamorig:${n}`;
  const names: Record<string, string> = {
    pelvis: m('Hips'), spine_01: m('Spine'), spine_02: m('Spine1'), spine_03: m('Spine2'), neck: m('Neck'), head: m('Head'),
    clavicle_l: m('LeftShoulder'), upperarm_l: m('LeftArm'), lowerarm_l: m('LeftForeArm'), hand_l: m('LeftHand'),
    clavicle_r: m('RightShoulder'), upperarm_r: m('RightArm'), lowerarm_r: m('RightForeArm'), hand_r: m('RightHand'),
    thigh_l: m('LeftUpLeg'), calf_l: m('LeftLeg'), foot_l: m('LeftFoot'), toe_l: m('LeftToeBase'),
    thigh_r: m('RightUpLeg'), calf_r: m('RightLeg'), foot_r: m('RightFoot'), toe_r: m('RightToeBase'),
  };
  return variantRig(base, {
    names, axes: 'y',
    scale: (n) => (LEG.has(n) ? 1.1 : 1),
    extras: [
      { name: m('HeadTop_End'), parent: m('Head'), pos: (p) => plus(p(m('Head')), [0, 0.18, 0]) },
      { name: m('LeftToe_End'), parent: m('LeftToeBase'), pos: (p) => plus(p(m('LeftToeBase')), [0, 0, 0.07]) },
      { name: m('RightToe_End'), parent: m('RightToeBase'), pos: (p) => plus(p(m('RightToeBase')), [0, 0, 0.07]) },
      ...fingerExtras((s) => m(`${s}Hand`), (s, f, k) => m(`${s}Hand${f}${k}`)),
    ],
  });
}

/**
 * VRoid Studio's export (a VRM's skeleton as three's loader gives it): J_Bip_* humanoid bones with an
 * upper chest, three bones per finger, J_Sec_* hair and skirt chains (secondary bones the spring
 * bones move, nothing the adapter drives), arms 10 degrees below horizontal, legs 0.95x, facing -Z.
 */
export function vroidRig(base: RigBone[]): RigBone[] {
  const j = (side: 'C' | 'L' | 'R', n: string): string => `J_Bip_${side}_${n}`;
  const names: Record<string, string> = {
    pelvis: j('C', 'Hips'), spine_01: j('C', 'Spine'), spine_02: j('C', 'Chest'), spine_03: j('C', 'UpperChest'), neck: j('C', 'Neck'), head: j('C', 'Head'),
    clavicle_l: j('L', 'Shoulder'), upperarm_l: j('L', 'UpperArm'), lowerarm_l: j('L', 'LowerArm'), hand_l: j('L', 'Hand'),
    clavicle_r: j('R', 'Shoulder'), upperarm_r: j('R', 'UpperArm'), lowerarm_r: j('R', 'LowerArm'), hand_r: j('R', 'Hand'),
    thigh_l: j('L', 'UpperLeg'), calf_l: j('L', 'LowerLeg'), foot_l: j('L', 'Foot'), toe_l: j('L', 'ToeBase'),
    thigh_r: j('R', 'UpperLeg'), calf_r: j('R', 'LowerLeg'), foot_r: j('R', 'Foot'), toe_r: j('R', 'ToeBase'),
  };
  const hair: NonNullable<VariantOptions['extras']> = [];
  for (let k = 1; k <= 4; k++) {
    const parent = k === 1 ? j('C', 'Head') : `J_Sec_Hair${k - 1}_01`;
    hair.push({ name: `J_Sec_Hair${k}_01`, parent, pos: (p) => plus(p(parent), k === 1 ? [0, 0.12, -0.08] : [0, -0.06, -0.02]) });
  }
  for (const [side, sign] of [['L', 1], ['R', -1]] as const) {
    hair.push({ name: `J_Sec_${side}_Skirt_01`, parent: j('C', 'Hips'), pos: (p) => plus(p(j('C', 'Hips')), [sign * 0.12, -0.05, 0.05]) });
    hair.push({ name: `J_Sec_${side}_Skirt_02`, parent: `J_Sec_${side}_Skirt_01`, pos: (p) => plus(p(`J_Sec_${side}_Skirt_01`), [sign * 0.02, -0.15, 0.01]) });
  }
  return variantRig(base, {
    names, axes: 'identity', yaw: Math.PI, armDrop: (10 * Math.PI) / 180,
    scale: (n) => (LEG.has(n) ? 0.95 : 0.92),
    extras: [...hair, ...fingerExtras((s) => j(s === 'Left' ? 'L' : 'R', 'Hand'), (s, f, k) => j(s === 'Left' ? 'L' : 'R', `${f === 'Thumb' ? 'Thumb' : f}${k}`), 3)],
  });
}
