/**
 * What a bone's name says about it, for the humanoid conventions of the rigs a three.js developer
 * loads: Mixamo (`mixamorig:LeftUpLeg`, also without the colon), VRM humanoid names and three-vrm's
 * normalized bones (`leftUpperLeg`, `Normalized_J_Bip_L_UpperLeg`), VRoid (`J_Bip_L_Foot`), Unreal
 * (`thigh_l`, `calf_l`, `ball_l`, `spine_01`), Blender/Rigify (`thigh.L`, `shin.L`, `DEF-toe.L`),
 * BVH-style (`LeftUpLeg`, `LeftLeg`, `LeftToeBase`). Helper bones (twist, roll, IK targets, end
 * tips) are recognised so that they are never taken for the limb they sit on.
 */
import { nameTokens } from '../features/bone-names.js';

export type Side = 'left' | 'right' | 'none';

/** The body parts a humanoid map needs; 'helper' and 'other' are never mapped by name. */
export type BonePart =
  | 'hips' | 'spine' | 'chest' | 'neck' | 'head'
  | 'shoulder' | 'upperArm' | 'lowerArm' | 'hand'
  | 'upperLeg' | 'lowerLeg' | 'foot' | 'toes'
  | 'helper' | 'other';

export interface BoneNameInfo {
  readonly side: Side;
  readonly part: BonePart;
}

/** Prefixes that only say which tool made the rig. */
const PREFIX = /^(mixamorig\d*|normalized_|def-|org-|mch-|j_bip_|bip\d*_?)/i;

/**
 * Lower-case words of a name: namespace ("mixamorig:", "Armature|") and tool prefixes dropped,
 * camelCase, separators and digits split apart. "mixamorigLeftToeBase" -> [left, toe, base].
 */
export function boneNameWords(name: string): string[] {
  let bare = name.split(/[:|]/).pop() ?? name;
  // Strip tool prefixes repeatedly ("Normalized_J_Bip_L_Foot"), keeping at least one letter.
  for (let k = 0; k < 3; k++) {
    const m = PREFIX.exec(bare);
    if (!m || m[0].length >= bare.length) break;
    bare = bare.slice(m[0].length);
  }
  return nameTokens(bare);
}

const HELPER = new Set(['twist', 'roll', 'end', 'nub', 'tip', 'top', 'ik', 'fk', 'pole', 'target', 'ctrl', 'control', 'mch', 'helper', 'corrective', 'socket', 'attach', 'prop', 'weapon', 'adj', 'sec', 'bend', 'mid', 'site']);
const FINGER = new Set(['thumb', 'index', 'middle', 'ring', 'pinky', 'little', 'finger', 'fingers', 'metacarpal', 'palm', 'carpal']);
/** Glued side prefixes worth splitting ("lfoot", "rthigh"): only before a known part word. */
const GLUED_PARTS = new Set(['foot', 'ankle', 'toe', 'toes', 'thigh', 'shin', 'calf', 'knee', 'leg', 'upleg', 'arm', 'forearm', 'hand', 'shoulder', 'clavicle', 'hip', 'collar']);

export function sideOfWords(words: readonly string[]): Side {
  for (const w of words) {
    if (w === 'left' || w === 'l') return 'left';
    if (w === 'right' || w === 'r') return 'right';
  }
  return 'none';
}

/** Side and body part of one bone name. */
export function boneNameInfo(name: string): BoneNameInfo {
  const words: string[] = [];
  for (const w of boneNameWords(name)) {
    const m = /^(left|right|l|r)(.+)$/.exec(w);
    if (m && GLUED_PARTS.has(m[2])) words.push(m[1], m[2]); else words.push(w);
  }
  const side = sideOfWords(words);
  const has = (...ws: string[]): boolean => ws.some((w) => words.includes(w));
  let part: BonePart = 'other';
  if (words.some((w) => HELPER.has(w))) part = 'helper';
  else if (words.some((w) => FINGER.has(w))) part = 'other';
  else if (has('toe', 'toes', 'toebase', 'ball')) part = 'toes';
  else if (has('foot', 'ankle')) part = 'foot';
  else if (has('hand', 'wrist')) part = 'hand';
  else if (has('forearm', 'lowerarm', 'elbow') || (has('arm') && has('lower', 'fore', 'low'))) part = 'lowerArm';
  else if (has('upperarm', 'arm')) part = 'upperArm';
  else if (has('shoulder', 'clavicle', 'collar', 'collarbone')) part = 'shoulder';
  else if (has('thigh', 'upleg', 'upperleg', 'femur') || (has('leg') && has('up', 'upper'))) part = 'upperLeg';
  else if (has('calf', 'shin', 'lowerleg', 'knee', 'leg')) part = 'lowerLeg';
  else if (has('hips', 'pelvis', 'hip')) part = side === 'none' ? 'hips' : 'upperLeg';
  else if (has('head')) part = 'head';
  else if (has('neck')) part = 'neck';
  else if (has('chest', 'upperchest')) part = 'chest';
  else if (has('spine', 'abdomen', 'torso', 'back', 'waist')) part = 'spine';
  return { side, part };
}
