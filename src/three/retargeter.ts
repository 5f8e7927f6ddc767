/**
 * ThreeRetargeter: drives a three.js character (glTF/GLB/VRM skinned mesh) from a motionmatch
 * controller. Each step, after controller.update(), apply(controller):
 *   1. places the character: the controller's root motion scaled by the leg-length ratio (a
 *      character with longer legs strides further per step, so its planted feet stay planted) and
 *      its facing;
 *   2. carries every paired joint's world rotation over through the two bind poses (bone-pairs.ts);
 *      bones nothing drives (twist bones, fingers) keep their bind rotation relative to their parent;
 *      the hips' position is the engine's, scaled;
 *   3. plants the feet with two-bone IK on the character's own legs where the engine's feet are
 *      (scaled about the root, on the controller's ground when it has one), knees bending the way
 *      the engine's knees point; the feet keep the engine's orientation;
 *   4. writes the root's placement and, with output 'bones' (the default), the driven bones'
 *      quaternions and the hips' position, for three to turn into matrices; with output 'matrices'
 *      (crowds) the skinning matrices are written from the flat pose when three asks for them
 *      (skinning.ts) and the bone objects are left alone (updateBoneObjects() writes them on demand).
 * Levels of detail: a character the controller marks unseen (out of view, its pose held) is only
 * placed (step 1 and the root of step 4), its pose kept relative to the root; with the holdPose
 * option, so is one whose pose the controller held this step (a level updating it every few steps).
 * Everything per step works on arrays allocated in the constructor: apply() allocates nothing.
 */
import { Matrix4, Object3D, Quaternion, SkinnedMesh, Vector3, type Skeleton } from 'three';
import type { Database } from '../database/database.js';
import type { Ground } from '../runtime/ground/ground.js';
import { quatInvMultiply, quatInvRotateVec3, quatMultiply, quatRotateVec3 } from '../math/quat.js';
import { composeJoint } from '../anim/forward-kinematics.js';
import { createTwoBoneIkScratch, solveTwoBoneIkInto, type TwoBoneIkScratch } from '../math/two-bone-ik.js';
import { selectSkeleton, type CharacterSource } from './select-skeleton.js';
import { buildTargetRig, type TargetRig } from './target-rig.js';
import { sourceRig, type SourceRig } from './source-rig.js';
import { pairBones, type BonePairs } from './bone-pairs.js';
import type { HumanoidRole } from './find-bones.js';
import { ThreeRigError } from './errors.js';
import { sharedTable, type Table } from './shared-tables.js';
import { THREE_RETARGETER_OPTION_KEYS, type BoneMapEntry, type RetargetSource, type ThreeRetargeterOptions } from './retargeter-options.js';
import { refuseUnknownOptions } from '../util/option-keys.js';
import { describeArgument } from '../util/arguments.js';
import { relativeApplyBoneTransform, relativeUpdateMatrixWorld } from './root-relative.js';
import { IDENTITY_AFFINE, affineFromMatrix4, affineMultiply, geometryWithoutCopies, planSkinning, posedJoints, readsBoneObjects, withoutCopies, writeSkinning, type SkinningPlan } from './skinning.js';

export type { BoneMapEntry, RetargetSource, ThreeRetargeterOptions } from './retargeter-options.js';

/**
 * Scratch for apply() and the skinning updates, shared by every retargeter (they run one at a time):
 * one copy stays in the caches across a crowd.
 */
const SCRATCH = {
  invRoot: new Float64Array(4), q: new Float64Array(8), v: new Float64Array(12), target: new Float64Array(3),
  pole: new Float64Array(3), footRot: new Float64Array(4), groundAt: new Float64Array(3), groundOut: new Float64Array(4),
  ik: createTwoBoneIkScratch(), rootFrame: new Float64Array(12), skin: new Float64Array(24), world: new Matrix4(),
};

/** How close (m, in the rig's frame) the retargeted ankle must be to its target for foot IK to leave the leg as it is: far below what shows (0.01 mm). */
const REACHED = 1e-5;

/** The database's side, made once per database. */
const SOURCE_RIGS = new WeakMap<Database, SourceRig>();
function sourceRigOf(db: Database): SourceRig {
  let s = SOURCE_RIGS.get(db);
  if (!s) { s = sourceRig(db); SOURCE_RIGS.set(db, s); }
  return s;
}

export class ThreeRetargeter {
  readonly db: Database;
  /** The object placed in the world each step. */
  readonly root: Object3D;
  readonly rig: TargetRig;
  readonly pairs: BonePairs;
  /** What was matched: one entry per driven bone (for a UI panel). */
  readonly boneMap: readonly BoneMapEntry[];
  /** The leg-length ratio in use: the scale of root motion, the hips and the feet (1 with scaleByLegLength false). */
  readonly legRatio: number;
  /** Character leg length over the database's (hip to knee plus knee to ankle, bind pose against rest pose). */
  readonly naturalLegRatio: number;
  /** Where the character stands (world), after the last apply(). */
  readonly position: Float64Array;
  /** The character rig's pose after the last apply, in the root frame (R): world rotations J*4, positions J*3, locals J*4. */
  readonly rotations: Float64Array;
  readonly positions: Float64Array;
  readonly locals: Float64Array;
  readonly output: 'bones' | 'matrices';

  private readonly src: SourceRig;
  private readonly footIK: boolean;
  private readonly teleport: number;
  /** Height added to the hips and feet: the character's ankle height over the scaled database one (m). */
  private readonly lift: number;
  private readonly legs: Int32Array; // per leg: hip, knee, foot (rig), hip, knee, foot (database)
  private readonly prevRoot: Float64Array;
  private started = false;
  private readonly holdPose: boolean;
  /** Counts the poses apply() computed (skinning relative to the root rewrites the matrices only for a new one). */
  private poseVersion = 0;
  /** Output 'matrices' with rootRelativeSkinning: the meshes taken over. */
  private readonly relativeMeshes: SkinnedMesh[] = [];
  /** Whether apply() has posed the character at least once (an unseen character is then only placed). */
  private posed = false;
  // Scratch (never reallocated).
  private readonly invRoot = SCRATCH.invRoot;
  private readonly q = SCRATCH.q;
  private readonly v = SCRATCH.v;
  private readonly target = SCRATCH.target;
  private readonly pole = SCRATCH.pole;
  private readonly footRot = SCRATCH.footRot;
  private readonly groundAt = SCRATCH.groundAt;
  private readonly groundOut = SCRATCH.groundOut;
  private readonly ik: TwoBoneIkScratch = SCRATCH.ik;
  /** Rig joints apply() writes to three (the paired ones, hips first). */
  private readonly written: Int32Array;
  /**
   * Rig joints whose pose apply() computes, parents first: all of them with output 'bones'; with
   * 'matrices', the driven ones, those a skinning matrix is computed from, and the joints above them
   * (a finger that keeps its bind pose and whose skinning matrix is its hand's is never computed).
   */
  private readonly active: Int32Array;
  /** Per leg, the active joints below the thigh (parents first): what foot IK moves. */
  private readonly legTails: readonly [Int32Array, Int32Array];
  // Output 'matrices': one plan per skeleton, the map from R to the root's frame, scratch.
  private readonly plans: readonly SkinningPlan[];
  private rootToR = new Float64Array(12); // inverse(Yaw × rootScale): R -> the root's local frame
  private readonly rootFrame = SCRATCH.rootFrame; // root.matrixWorld × rootToR: R -> world
  private readonly skinScratch = SCRATCH.skin;
  private readonly skinWorld = SCRATCH.world;
  private readonly rigObjects: ReadonlySet<Object3D>;
  /** Output 'matrices' with mergeStillBones: each mesh given a merged geometry, and its own. */
  private readonly geometries: Array<[SkinnedMesh, SkinnedMesh['geometry']]> = [];
  /** Output 'matrices' without keepBonesInScene: the object the hips were taken out of. */
  private detachedFrom: Object3D | null = null;

  /** The adapter for a loaded glTF scene (gltf.scene), a VRM's scene, or any object holding the character. */
  static fromGltf(scene: Object3D, db: Database, options: ThreeRetargeterOptions = {}): ThreeRetargeter {
    return new ThreeRetargeter(db, scene, options);
  }

  constructor(db: Database, character: CharacterSource, options: ThreeRetargeterOptions = {}) {
    try { refuseUnknownOptions(options, THREE_RETARGETER_OPTION_KEYS, 'option '); } catch (e) { throw new ThreeRigError('bad-option', (e as Error).message); }
    this.db = db;
    const sel = selectSkeleton(character, options.skeleton, options.root);
    this.root = sel.root;
    this.src = sourceRigOf(db);
    // Clones of one character share their constant tables (shared-tables.ts).
    const family = sel.skeletons.length > 0 ? sel.skeletons[0].boneInverses : null;
    const share = <T extends Table>(t: T): T => sharedTable(family, t);
    const rig = buildTargetRig(sel, options.boneMap ?? {}, this.src.facing);
    const pairs = pairBones(this.src, rig, options.restAlignment !== false);
    if (options.bindPoseCorrection === false) {
      // (testing aid) identity corrections: the capture's world rotations as they are.
      for (let j = 0; j < rig.names.length; j++) pairs.correction.set([0, 0, 0, 1], 4 * j);
    }
    this.rig = {
      ...rig, parents: share(rig.parents), offsets: share(rig.offsets), restLocal: share(rig.restLocal), restRot: share(rig.restRot),
      restPos: share(rig.restPos), frameRot: share(rig.frameRot), framePos: share(rig.framePos), facingTurn: share(rig.facingTurn),
    };
    this.pairs = { ...pairs, source: share(pairs.source), correction: share(pairs.correction) };
    this.naturalLegRatio = this.rig.legLength / this.src.legLength;
    this.legRatio = options.scaleByLegLength === false ? 1 : this.naturalLegRatio;
    this.lift = this.rig.ankleHeight - this.legRatio * this.src.ankleHeight;
    this.footIK = options.footIK !== false;
    this.teleport = options.teleportDistance ?? 1;
    this.holdPose = options.holdPose === true;
    const J = this.rig.names.length;
    // The character's own state, in one buffer (one place in memory per character).
    const state = new Float64Array(11 * J + 6);
    this.rotations = state.subarray(0, 4 * J);
    this.positions = state.subarray(4 * J, 7 * J);
    this.locals = state.subarray(7 * J, 11 * J);
    this.locals.set(this.rig.restLocal);
    this.position = state.subarray(11 * J, 11 * J + 3);
    this.prevRoot = state.subarray(11 * J + 3, 11 * J + 6);
    const tr = this.rig.bones.roles, sr = this.src.bones.roles;
    this.legs = share(Int32Array.from([
      tr.leftUpperLeg, tr.leftLowerLeg, tr.leftFoot, sr.leftUpperLeg, sr.leftLowerLeg, sr.leftFoot,
      tr.rightUpperLeg, tr.rightLowerLeg, tr.rightFoot, sr.rightUpperLeg, sr.rightLowerLeg, sr.rightFoot,
    ]));
    if (this.footIK) {
      for (let k = 0; k < 2; k++) {
        const [h, kn, f] = [this.legs[6 * k], this.legs[6 * k + 1], this.legs[6 * k + 2]];
        if (this.rig.parents[kn] !== h || this.rig.parents[f] !== kn) {
          // Bones between thigh, knee and foot (segmented deform chains): IK cannot bend them as two bones.
          throw new ThreeRigError('rig', `foot IK needs the ${k === 0 ? 'left' : 'right'} leg as thigh -> knee -> foot with no bone in between ("${this.rig.names[h]}", "${this.rig.names[kn]}", "${this.rig.names[f]}"); map other bones with boneMap or pass { footIK: false }`);
        }
      }
    }
    this.written = share(Int32Array.from([...this.pairs.source.keys()].filter((j) => this.pairs.source[j] >= 0)));
    this.output = options.output ?? 'bones';
    if (this.output !== 'bones' && this.output !== 'matrices') throw new RangeError(`ThreeRetargeter: output must be 'bones' or 'matrices', got ${String(this.output)}`);
    this.rigObjects = new Set(this.rig.objects);
    this.plans = this.output === 'matrices' ? this.takeOverSkinning(sel.skeletons, sel.meshes, options.mergeStillBones !== false, share, options.rootRelativeSkinning === true) : [];
    this.rootToR = share(this.rootToR);
    if (this.output === 'matrices' && options.keepBonesInScene !== true) this.detachBones(sel.meshes);
    this.active = share(this.activeJoints());
    this.legTails = [share(this.legTail(this.legs[0])), share(this.legTail(this.legs[6]))];
    const how = this.rig.bones.how;
    this.boneMap = [...this.written].map((j) => {
      const role = this.pairs.role[j] ?? '';
      return { role, target: this.rig.names[j], source: this.src.names[this.pairs.source[j]], how: how[role as HumanoidRole] ?? 'shape' };
    });
  }

  /**
   * Output 'matrices': a skinning plan per skeleton, each skeleton's update() replaced by one that
   * writes its matrices from this retargeter's pose, and three's per-bone matrix updates switched off
   * (the bone objects would only be recomputed to be ignored).
   */
  private takeOverSkinning(skeletons: readonly Skeleton[], meshes: readonly SkinnedMesh[], merge: boolean, share: <T extends Table>(t: T) => T, rootRelative: boolean): SkinningPlan[] {
    if (skeletons.length === 0) throw new ThreeRigError('no-skin', "output 'matrices' writes the skinning matrices of skinned meshes, and the character has none");
    const root = this.root, rig = this.rig;
    root.updateWorldMatrix(true, true);
    // R = Yaw × rootScale × inverse(root.matrixWorld) (target-rig.ts); rootToR is the inverse of Yaw × rootScale.
    const yawScale = new Matrix4().compose(new Vector3(), new Quaternion(rig.facingTurn[0], rig.facingTurn[1], rig.facingTurn[2], rig.facingTurn[3]), root.scale.clone());
    const toR = yawScale.clone().multiply(root.matrixWorld.clone().invert());
    const rootToR4 = yawScale.clone().invert(); // rootToR as a Matrix4
    affineFromMatrix4(this.rootToR, 0, yawScale.invert());
    const source = this.pairs.source;
    const moves = (j: number): boolean => j === 0 || source[j] >= 0;
    const plans = skeletons.map((sk): SkinningPlan => {
      let p = planSkinning(sk, { objects: rig.objects, parents: rig.parents, moves }, root, toR);
      // Still bones merged into their sources when every mesh of this skeleton can take the merged geometry.
      const own = meshes.filter((m) => m.skeleton === sk);
      const merged = merge && own.length > 0 ? own.map((m) => geometryWithoutCopies(m.geometry, p)) : [];
      if (merged.length > 0 && merged.every((g) => g !== null)) {
        own.forEach((m, k) => { this.geometries.push([m, m.geometry]); m.geometry = merged[k]!; });
        p = withoutCopies(p);
      }
      return { ...p, order: share(p.order), kind: share(p.kind), ref: share(p.ref), affine: share(p.affine) };
    });
    for (const plan of plans) {
      const sk = plan.skeleton;
      if (Object.prototype.hasOwnProperty.call(sk, 'update')) throw new ThreeRigError('rig', "this skeleton's matrices are already written by another ThreeRetargeter (output 'matrices'): dispose() that one first, or clone the character");
    }
    // three computes a skinned mesh's bounding sphere (frustum culling) from its bones' world matrices
    // the first time it draws it; those will not move any more, so it is computed now, in the bind pose.
    for (const m of meshes) if (m.boundingSphere === null) m.computeBoundingSphere();
    const rootInverse = root.matrixWorld.clone().invert();
    for (const plan of plans) {
      const sk = plan.skeleton;
      // Relative to the root: every mesh of this skeleton under the root, bound in attached mode, no bone outside the root.
      const own = meshes.filter((m) => m.skeleton === sk);
      const underRoot = (o: Object3D): boolean => { for (let p: Object3D | null = o; p; p = p.parent) if (p === root) return true; return false; };
      const relative = rootRelative && own.length > 0 && own.every((m) => underRoot(m) && m.bindMode === 'attached') && !readsBoneObjects(plan);
      if (!relative) { sk.update = (): void => this.updateSkinning(plan); continue; }
      // world = meshWorld × bindMatrixInverse × boneMatrix, meshWorld = rootWorld × L, wanted rootWorld × rootToR × boneMatrix':
      // bindMatrixInverse = inverse(L) × rootToR  (rootToR: R -> the root's frame).
      for (const m of own) {
        const L = rootInverse.clone().multiply(m.matrixWorld);
        m.bindMatrixInverse.copy(L.invert().multiply(rootToR4));
        // (one function for every mesh: the call site in three's updateMatrixWorld stays monomorphic)
        m.updateMatrixWorld = relativeUpdateMatrixWorld;
        (m as unknown as { applyBoneTransform: typeof relativeApplyBoneTransform }).applyBoneTransform = relativeApplyBoneTransform;
        this.relativeMeshes.push(m);
      }
      let written = -1;
      sk.update = (): void => {
        if (written === this.poseVersion) return; // the same pose: the matrices (and the texture) as they are
        written = this.poseVersion;
        writeSkinning(plan, this.rotations, this.positions, IDENTITY_AFFINE, this.skinScratch, this.skinWorld);
      };
    }
    for (const o of rig.objects) { o.matrixAutoUpdate = false; o.matrixWorldAutoUpdate = false; }
    return plans;
  }

  /**
   * Takes the hips (and every bone below) out of their parent's children, keeping their `parent`
   * link; not when a skinned mesh hangs below the hips (it would leave the scene with them).
   */
  private detachBones(meshes: readonly SkinnedMesh[]): void {
    const hips = this.rig.objects[0], parent = hips.parent;
    if (parent === null) return;
    for (const m of meshes) for (let o: Object3D | null = m; o; o = o.parent) if (o === hips) return;
    const at = parent.children.indexOf(hips);
    if (at < 0) return;
    parent.children.splice(at, 1);
    this.detachedFrom = parent;
  }

  /** The joints apply() computes (see `active`). */
  private activeJoints(): Int32Array {
    const J = this.rig.names.length, parents = this.rig.parents;
    if (this.output === 'bones') return Int32Array.from({ length: J }, (_, j) => j);
    const need = new Uint8Array(J);
    need[0] = 1;
    for (let j = 0; j < J; j++) if (this.pairs.source[j] >= 0) need[j] = 1;
    for (const plan of this.plans) for (const j of posedJoints(plan)) need[j] = 1;
    for (let j = J - 1; j > 0; j--) if (need[j]) need[parents[j]] = 1; // parents first: one backward pass
    return Int32Array.from([...need.keys()].filter((j) => need[j]));
  }

  /** The active joints below a thigh, parents first. */
  private legTail(thigh: number): Int32Array {
    const parents = this.rig.parents, below = new Uint8Array(parents.length);
    below[thigh] = 1;
    const out: number[] = [];
    for (const j of this.active) if (j !== thigh && parents[j] >= 0 && below[parents[j]]) { below[j] = 1; out.push(j); }
    return Int32Array.from(out);
  }

  /** A skeleton's update() under output 'matrices': its skinning matrices from the last apply(). */
  private updateSkinning(plan: SkinningPlan): void {
    affineFromMatrix4(this.skinScratch, 0, this.root.matrixWorld);
    affineMultiply(this.rootFrame, 0, this.skinScratch, 0, this.rootToR, 0);
    writeSkinning(plan, this.rotations, this.positions, this.rootFrame, this.skinScratch, this.skinWorld);
  }

  /**
   * Output 'matrices': writes the last apply()'s pose to the bone objects (quaternions, the hips'
   * position, their matrix and matrixWorld) and updates the world matrices of objects attached to
   * them, for code that reads bones (attachments, SkeletonHelper, raycasts). Bones nothing drives
   * keep their bind local transform. With output 'bones' apply() already does this (three updates
   * the matrices).
   */
  updateBoneObjects(): void {
    if (this.output === 'bones') return;
    this.writeBones();
    const objects = this.rig.objects;
    objects[0].parent?.updateWorldMatrix(true, false);
    for (const o of objects) {
      o.updateMatrix();
      if (o.parent) o.matrixWorld.multiplyMatrices(o.parent.matrixWorld, o.matrix); else o.matrixWorld.copy(o.matrix);
      for (const c of o.children) if (!this.rigObjects.has(c)) c.updateMatrixWorld(true);
    }
  }

  /**
   * Output 'matrices': gives the skeletons and bones back to three (their own update() and matrix
   * updates). The retargeter must not be used afterwards.
   */
  dispose(): void {
    for (const plan of this.plans) delete (plan.skeleton as { update?: unknown }).update;
    for (const m of this.relativeMeshes) {
      delete (m as { updateMatrixWorld?: unknown }).updateMatrixWorld;
      delete (m as { applyBoneTransform?: unknown }).applyBoneTransform;
      m.bindMatrixInverse.copy(m.matrixWorld).invert(); // as three's next updateMatrixWorld will
    }
    this.relativeMeshes.length = 0;
    for (const [m, g] of this.geometries) m.geometry = g;
    this.geometries.length = 0;
    const hips = this.rig.objects[0];
    if (this.detachedFrom !== null && hips.parent === this.detachedFrom && !this.detachedFrom.children.includes(hips)) this.detachedFrom.children.push(hips);
    this.detachedFrom = null;
    if (this.plans.length > 0) for (const o of this.rig.objects) { o.matrixAutoUpdate = true; o.matrixWorldAutoUpdate = true; }
  }

  /** Forget the character's placement: the next apply() puts it at the controller's root. */
  resetPlacement(): void {
    this.started = false;
  }

  /** Poses and places the character from the controller's output (call after controller.update). */
  apply(c: RetargetSource): void {
    if (c === null || typeof c !== 'object') throw new TypeError(`ThreeRetargeter.apply: expected the character's MotionMatchingController, got ${describeArgument(c)}`);
    if (c.db !== this.db) throw new RangeError('ThreeRetargeter.apply: the controller plays another database than this retargeter was made for');
    this.place(c);
    if (this.posed && (c.unseen === true || (this.holdPose && c.poseSeconds === 0))) {
      // Out of view, or (holdPose) a held pose: only the placement follows (with output 'matrices',
      // skeleton.update(), when three draws the character, writes the kept pose under it).
      this.writeRoot(c);
      return;
    }
    this.posed = true;
    this.poseVersion++;
    this.retarget(c);
    if (this.footIK) {
      if (this.plantFoot(c, 0)) this.forwardKinematicsFromLocals(this.legTails[0]);
      if (this.plantFoot(c, 1)) this.forwardKinematicsFromLocals(this.legTails[1]);
    }
    if (this.output === 'bones') this.writeBones();
    this.writeRoot(c);
  }

  /** The character's world position: the controller's root motion scaled by the leg ratio. */
  private place(c: RetargetSource): void {
    const r = c.rootPosition, p = this.position, prev = this.prevRoot;
    const dx = r[0] - prev[0], dz = r[2] - prev[2];
    if (!this.started || dx * dx + dz * dz > this.teleport * this.teleport) {
      p[0] = r[0]; p[2] = r[2];
      this.started = true;
    } else {
      p[0] += this.legRatio * dx; p[2] += this.legRatio * dz;
    }
    prev[0] = r[0]; prev[1] = r[1]; prev[2] = r[2];
    // Height: the controller's root height, moved by the ground's rise between its root and ours.
    const g = c.options.ground;
    p[1] = r[1];
    if (g !== null) p[1] += this.groundHeight(g, p[0], p[2]) - this.groundHeight(g, r[0], r[2]);
  }

  /** The ground's height under (x, z) (heights only: ground.sample, as the engine asks it). */
  private groundHeight(g: Ground, x: number, z: number): number {
    const at = this.groundAt, out = this.groundOut;
    at[0] = x; at[1] = 0; at[2] = z;
    g.sample(at, out);
    return out[0];
  }

  /** Step 2: world rotations of the paired joints from the database's, the rest from the bind pose. */
  private retarget(c: RetargetSource): void {
    const rig = this.rig, W = this.rotations, src = this.pairs.source, corr = this.pairs.correction;
    const inv = this.invRoot, v = this.v, active = this.active;
    inv[0] = -c.rootRotation[0]; inv[1] = -c.rootRotation[1]; inv[2] = -c.rootRotation[2]; inv[3] = c.rootRotation[3];
    const ix = inv[0], iy = inv[1], iz = inv[2], iw = inv[3], E = c.worldRotations;
    for (let a = 0; a < active.length; a++) {
      const j = active[a], s = src[j], p = rig.parents[j];
      if (s >= 0) {
        // W_j = (inv × E_s) × corr_j, written out (= quatMultiply(q, 0, inv, 0, E, 4s), then
        // quatMultiply(W, 4j, q, 0, corr, 4j): the same operations in the same order).
        const s4 = 4 * s, j4 = 4 * j;
        const ex = E[s4], ey = E[s4 + 1], ez = E[s4 + 2], ew = E[s4 + 3];
        const qx = iw * ex + ix * ew + iy * ez - iz * ey;
        const qy = iw * ey - ix * ez + iy * ew + iz * ex;
        const qz = iw * ez + ix * ey - iy * ex + iz * ew;
        const qw = iw * ew - ix * ex - iy * ey - iz * ez;
        const cx = corr[j4], cy = corr[j4 + 1], cz = corr[j4 + 2], cw = corr[j4 + 3];
        W[j4] = qw * cx + qx * cw + qy * cz - qz * cy;
        W[j4 + 1] = qw * cy - qx * cz + qy * cw + qz * cx;
        W[j4 + 2] = qw * cz + qx * cy - qy * cx + qz * cw;
        W[j4 + 3] = qw * cw - qx * cx - qy * cy - qz * cz;
      } else if (p >= 0) {
        quatMultiply(W, 4 * j, W, 4 * p, rig.restLocal, 4 * j);
      } else {
        W.set(rig.frameRot, 0); quatMultiply(W, 0, W, 0, rig.restLocal, 0);
      }
    }
    // The hips: the engine's, scaled about the root, lifted by the ankle-height difference.
    const hs = this.src.bones.roles.hips, k = this.legRatio;
    for (let d = 0; d < 3; d++) v[d] = c.worldPositions[3 * hs + d] - c.rootPosition[d];
    quatRotateVec3(v, 3, inv, 0, v, 0);
    this.positions[0] = k * v[3]; this.positions[1] = k * v[4] + this.lift; this.positions[2] = k * v[5];
    this.forwardKinematicsFromRotations();
  }

  /** Positions and locals of the active joints from their world rotations (the hips' position given). */
  private forwardKinematicsFromRotations(): void {
    const parents = this.rig.parents, offsets = this.rig.offsets, W = this.rotations, P = this.positions, L = this.locals, active = this.active;
    for (let a = 1; a < active.length; a++) {
      const j = active[a], p = parents[j], j4 = 4 * j, p4 = 4 * p, j3 = 3 * j, p3 = 3 * p;
      // Written out, the same operations in the same order as
      //   quatInvMultiply(L, 4j, W, 4p, W, 4j)                       L_j = conj(W_p) × W_j
      //   quatRotateVec3(v, 0, W, 4p, offsets, 3j); P_j = P_p + v     the offset turned by W_p
      // (as calls, V8 did not inline them: every joint of every character paid two calls).
      const px = W[p4], py = W[p4 + 1], pz = W[p4 + 2], pw = W[p4 + 3];
      const ax = -px, ay = -py, az = -pz;
      const bx = W[j4], by = W[j4 + 1], bz = W[j4 + 2], bw = W[j4 + 3];
      L[j4] = pw * bx + ax * bw + ay * bz - az * by;
      L[j4 + 1] = pw * by - ax * bz + ay * bw + az * bx;
      L[j4 + 2] = pw * bz + ax * by - ay * bx + az * bw;
      L[j4 + 3] = pw * bw - ax * bx - ay * by - az * bz;
      const vx = offsets[j3], vy = offsets[j3 + 1], vz = offsets[j3 + 2];
      const tx = 2 * (py * vz - pz * vy), ty = 2 * (pz * vx - px * vz), tz = 2 * (px * vy - py * vx);
      P[j3] = P[p3] + (vx + pw * tx + (py * tz - pz * ty));
      P[j3 + 1] = P[p3 + 1] + (vy + pw * ty + (pz * tx - px * tz));
      P[j3 + 2] = P[p3 + 2] + (vz + pw * tz + (px * ty - py * tx));
    }
  }

  /** World transforms of `joints` (parents first) from their locals and their parents' world transforms. */
  private forwardKinematicsFromLocals(joints: Int32Array): void {
    const rig = this.rig, W = this.rotations, P = this.positions, L = this.locals;
    for (let a = 0; a < joints.length; a++) {
      const j = joints[a], p = rig.parents[j];
      composeJoint(P, W, j, P, 3 * p, W, 4 * p, rig.offsets, 3 * j, L, 4 * j);
    }
  }

  /**
   * Step 3 for one leg: the ankle goes where the engine's ankle is, scaled about the root; over a
   * ground, at the same height over the ground under it as the engine's (scaled). The knee bends
   * towards the engine's knee; the foot keeps its retargeted world rotation. Returns whether the leg
   * was solved: where the retargeted pose already has the ankle on its target (within REACHED: a rig
   * with the capture's proportions, scaled or not, on flat ground) the solve would change nothing.
   */
  private plantFoot(c: RetargetSource, leg: number): boolean {
    const L6 = 6 * leg, hip = this.legs[L6], knee = this.legs[L6 + 1], foot = this.legs[L6 + 2];
    const sHip = this.legs[L6 + 3], sKnee = this.legs[L6 + 4], sFoot = this.legs[L6 + 5];
    const v = this.v, inv = this.invRoot, k = this.legRatio, wp = c.worldPositions, rp = c.rootPosition, t = this.target;
    for (let d = 0; d < 3; d++) v[d] = wp[3 * sFoot + d] - rp[d];
    quatRotateVec3(t, 0, inv, 0, v, 0);
    t[0] *= k; t[2] *= k;
    const g = c.options.ground;
    if (g === null) {
      t[1] = k * t[1] + this.lift;
    } else {
      // Height over the ground under the engine's foot, scaled, over the ground under ours.
      const under = wp[3 * sFoot + 1] - this.groundHeight(g, wp[3 * sFoot], wp[3 * sFoot + 2]);
      quatRotateVec3(v, 3, c.rootRotation, 0, t, 0);
      const ours = this.groundHeight(g, this.position[0] + v[3], this.position[2] + v[5]);
      t[1] = ours + k * under + this.lift - this.position[1];
    }
    const P = this.positions, f3 = 3 * foot;
    const ex = t[0] - P[f3], ey = t[1] - P[f3 + 1], ez = t[2] - P[f3 + 2];
    if (ex * ex + ey * ey + ez * ez < REACHED * REACHED) return false;
    // Pole: the engine's knee offset from its hip, in the root frame.
    for (let d = 0; d < 3; d++) v[d] = wp[3 * sKnee + d] - wp[3 * sHip + d];
    quatRotateVec3(this.pole, 0, inv, 0, v, 0);
    const W = this.rotations, fr = this.footRot;
    fr[0] = W[4 * foot]; fr[1] = W[4 * foot + 1]; fr[2] = W[4 * foot + 2]; fr[3] = W[4 * foot + 3];
    solveTwoBoneIkInto(this.locals, this.positions, this.rotations, this.rig.parents, hip, knee, foot, t, this.ik, this.pole);
    // The foot keeps its retargeted world rotation (flat where the engine's is flat).
    quatInvMultiply(this.locals, 4 * foot, this.rotations, 4 * knee, this.footRot, 0);
    return true;
  }

  /** Step 4 (output 'bones'): the driven bones' rotations and the hips' position. */
  private writeBones(): void {
    const rig = this.rig, W = this.rotations, L = this.locals, q = this.q, v = this.v;
    const written = this.written;
    for (let i = 0; i < written.length; i++) {
      const j = written[i];
      if (j === 0) continue;
      // fromArray (an array and an integer offset) rather than set(x, y, z, w): doubles passed to a
      // call V8 does not inline are boxed, one heap number each.
      rig.objects[j].quaternion.fromArray(L, 4 * j);
    }
    // Hips, relative to their (constant) parent frame.
    quatInvMultiply(q, 0, rig.frameRot, 0, W, 0);
    const hips = rig.objects[0];
    hips.quaternion.fromArray(q, 0);
    for (let d = 0; d < 3; d++) v[d] = this.positions[d] - rig.framePos[d];
    quatInvRotateVec3(v, 3, rig.frameRot, 0, v, 0);
    const s = 1 / rig.frameScale;
    v[3] *= s; v[4] *= s; v[5] *= s;
    hips.position.fromArray(v, 3);
  }

  /** Step 4: the root's placement: the character's position, the controller's facing turned by the rig's own. */
  private writeRoot(c: RetargetSource): void {
    const q = this.q;
    quatMultiply(q, 4, c.rootRotation, 0, this.rig.facingTurn, 0);
    this.root.position.fromArray(this.position, 0);
    this.root.quaternion.fromArray(q, 4);
  }
}

