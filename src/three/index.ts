/**
 * motionmatch/three: drive a three.js character (glTF/GLB or VRM skinned mesh: Mixamo, VRM,
 * Unreal, Blender rigs, T- or A-pose) from a motionmatch controller (docs/three.md). `three` is a
 * peer dependency; the engine core never imports it.
 */
export { ThreeRetargeter, type ThreeRetargeterOptions, type BoneMapEntry, type RetargetSource } from './retargeter.js';
export { ThreeRigError, type ThreeRigErrorCode } from './errors.js';
export { HUMANOID_ROLES, REQUIRED_ROLES, findHumanoidBones, type HumanoidRole, type HumanoidBones, type RigDescription } from './find-bones.js';
export { boneNameInfo, boneNameWords, type BonePart, type BoneNameInfo } from './bone-names.js';
export { selectSkeleton, type CharacterSource, type SelectedSkeleton } from './select-skeleton.js';
export { checkGlb, parseGlb, GLB_MAX_BYTES } from './glb.js';

