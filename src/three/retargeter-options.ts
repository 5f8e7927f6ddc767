/**
 * What ThreeRetargeter (retargeter.ts) reads from a controller, the options it takes and the bone map
 * it reports.
 */
import type { OptionKeys } from '../util/option-keys.js';
import type { Object3D, Skeleton, SkinnedMesh } from 'three';
import type { Database } from '../database/database.js';
import type { Ground } from '../runtime/ground/ground.js';
import type { HumanoidRole } from './find-bones.js';

/** What apply() reads from a controller (MotionMatchingController has all of it). */
export interface RetargetSource {
  readonly db: Database;
  readonly rootPosition: Float64Array;
  readonly rootRotation: Float64Array;
  readonly worldPositions: Float64Array;
  readonly worldRotations: Float64Array;
  readonly options: { readonly ground: Ground | null };
  /**
   * Out of view (MotionMatchingController.unseen, levels of detail): apply() then only places the
   * character, keeping its pose relative to the root as it was; the engine holds its pose too.
   */
  readonly unseen?: boolean;
  /**
   * Seconds the pose moved on by in the last step (MotionMatchingController.poseSeconds): 0 when a
   * level of detail held it. Read only with the holdPose option.
   */
  readonly poseSeconds?: number;
}

export interface ThreeRetargeterOptions {
  /** Role -> bone name, for bones the finder misses or gets wrong (wins over everything). */
  boneMap?: Partial<Record<HumanoidRole, string>>;
  /** Which skeleton, when the scene holds several: a Skeleton, a SkinnedMesh, or a mesh or bone name. */
  skeleton?: Skeleton | SkinnedMesh | string;
  /** The object placed in the world each step (default: the object given, or the loaded scene above a mesh). */
  root?: Object3D;
  /** Plant the feet with two-bone IK on the character's legs (default true). */
  footIK?: boolean;
  /** Scale root motion and the hips by the leg-length ratio (default true; false: 1). */
  scaleByLegLength?: boolean;
  /**
   * A root step longer than this (m) is a teleport (controller.reset): the character jumps to the
   * controller's root instead of travelling a scaled share of it (default 1).
   */
  teleportDistance?: number;
  /**
   * Diagnostics (default true): false skips the bind-pose correction altogether (the capture's world
   * rotations used as they are), what a naive retarget does; shows why the correction is there.
   */
  bindPoseCorrection?: boolean;
  /**
   * Diagnostics (default true): false skips the swing that lines the character's bind bone
   * directions up with the capture's rest (an A-pose character then keeps its A-pose offsets).
   */
  restAlignment?: boolean;
  /**
   * What apply() produces (default 'bones'):
   * - 'bones': the bone objects' quaternions and the hips' position; three makes the matrices
   *   (updateMatrixWorld, skeleton.update), and everything that reads bones (attachments,
   *   SkeletonHelper, raycasts) sees the pose.
   * - 'matrices': for crowds. The skinning matrices of the character's skinned meshes are written
   *   straight from the retargeted pose when three draws them (each skeleton's update() is taken
   *   over); the bone objects are not touched per step and three no longer recomputes their
   *   matrices. Call updateBoneObjects() after apply() when something needs to read the bones.
   */
  output?: 'bones' | 'matrices';
  /**
   * Output 'matrices' only (default false): keep the bones in the scene graph. By default they are
   * taken out of it (the hips are removed from their parent's children; their `parent` link stays,
   * so world queries and updateBoneObjects() work): three would otherwise walk every bone of every
   * character each frame (updateMatrixWorld, the renderer's culling pass) only to skip it. Keep them
   * when objects hang on bones (they are drawn only while in the scene graph) or to find bones with
   * getObjectByName (rig.objects lists them either way).
   */
  keepBonesInScene?: boolean;
  /**
   * Output 'matrices' only (default true): bones that only follow their parent (fingers and twist
   * bones nothing drives, end bones) have their parent's skinning matrix; each skinned mesh gets a
   * geometry that says so — its skinIndex attribute remapped, every other attribute shared with the
   * original, one per original for all clones — and those matrices are never written. false: the
   * meshes keep their geometry and the matrices are copied each frame.
   */
  mergeStillBones?: boolean;
  /**
   * Levels of detail (default false): in a step where the controller held its pose (poseSeconds 0:
   * a level that updates the pose every few steps), apply() only places the character and carries
   * its last pose along with it, instead of retargeting the held pose again. Not the same picture:
   * without it the held pose stays where it was in the world while the root moves on (the engine's
   * own output), with it the body moves with the root and its limbs update at the level's rate.
   */
  holdPose?: boolean;
  /**
   * Output 'matrices' only (default false): skinning matrices relative to the character's root
   * instead of the world. Each skinned mesh's bindMatrixInverse is set once to what maps them back
   * (its transform under the root, inverted, times the rig frame's), instead of three inverting its
   * world matrix every frame (the mesh's updateMatrixWorld is taken over for that); the matrices no
   * longer depend on where the character stands, so skeleton.update() skips the root's placement,
   * and writes nothing (uploads nothing) while the pose has not changed (held poses, levels of
   * detail). Drawn the same. Assumes the meshes' transforms under the root do not change; meshes
   * whose skeleton has bones outside the root keep world matrices. bindMatrixInverse and
   * boneMatrices then hold other numbers than three's; getVertexPosition (raycasts, bounding
   * volumes) is kept right.
   */
  rootRelativeSkinning?: boolean;
}

/** Every ThreeRetargeterOptions key (the compiler keeps the table complete). */
export const THREE_RETARGETER_OPTION_KEYS: OptionKeys<ThreeRetargeterOptions> = {
  boneMap: true, skeleton: true, root: true, footIK: true, scaleByLegLength: true, teleportDistance: true, bindPoseCorrection: true,
  restAlignment: true, output: true, keepBonesInScene: true, mergeStillBones: true, holdPose: true, rootRelativeSkinning: true,
};

/** One line of the bone map: which role, which of the character's bones, which database joint. */
export interface BoneMapEntry {
  readonly role: string;
  readonly target: string;
  readonly source: string;
  /** How the character's bone was found. */
  readonly how: 'given' | 'name' | 'shape';
}
