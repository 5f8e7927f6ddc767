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
 *   4. writes the driven bones' quaternions, the hips' position and the root's placement.
 * Everything per step works on arrays allocated in the constructor: apply() allocates nothing.
 */
import type { Object3D, Skeleton, SkinnedMesh } from 'three';
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

/** What apply() reads from a controller (MotionMatchingController has all of it). */
export interface RetargetSource {
  readonly db: Database;
  readonly rootPosition: Float64Array;
  readonly rootRotation: Float64Array;
  readonly worldPositions: Float64Array;
  readonly worldRotations: Float64Array;
  readonly options: { readonly ground: Ground | null };
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
}

/** One line of the bone map: which role, which of the character's bones, which database joint. */
export interface BoneMapEntry {
  readonly role: string;
  readonly target: string;
  readonly source: string;
  /** How the character's bone was found. */
  readonly how: 'given' | 'name' | 'shape';
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
  readonly position = new Float64Array(3);
  /** The character rig's pose after the last apply, in the root frame (R): world rotations J*4, positions J*3, locals J*4. */
  readonly rotations: Float64Array;
  readonly positions: Float64Array;
  readonly locals: Float64Array;

  private readonly src: SourceRig;
  private readonly footIK: boolean;
  private readonly teleport: number;
  /** Height added to the hips and feet: the character's ankle height over the scaled database one (m). */
  private readonly lift: number;
  private readonly legs: Int32Array; // per leg: hip, knee, foot (rig), hip, knee, foot (database)
  private readonly prevRoot = new Float64Array(3);
  private started = false;
  // Scratch (never reallocated).
  private readonly invRoot = new Float64Array(4);
  private readonly q = new Float64Array(8);
  private readonly v = new Float64Array(12);
  private readonly target = new Float64Array(3);
  private readonly pole = new Float64Array(3);
  private readonly footRot = new Float64Array(4);
  private readonly groundAt = new Float64Array(3);
  private readonly groundOut = new Float64Array(4);
  private readonly ik: TwoBoneIkScratch = createTwoBoneIkScratch();
  /** Rig joints apply() writes to three (the paired ones, hips first). */
  private readonly written: Int32Array;

  /** The adapter for a loaded glTF scene (gltf.scene), a VRM's scene, or any object holding the character. */
  static fromGltf(scene: Object3D, db: Database, options: ThreeRetargeterOptions = {}): ThreeRetargeter {
    return new ThreeRetargeter(db, scene, options);
  }

  constructor(db: Database, character: CharacterSource, options: ThreeRetargeterOptions = {}) {
    this.db = db;
    const sel = selectSkeleton(character, options.skeleton, options.root);
    this.root = sel.root;
    this.src = sourceRig(db);
    this.rig = buildTargetRig(sel, options.boneMap ?? {}, this.src.facing);
    this.pairs = pairBones(this.src, this.rig, options.restAlignment !== false);
    if (options.bindPoseCorrection === false) {
      // (testing aid) identity corrections: the capture's world rotations as they are.
      for (let j = 0; j < this.rig.names.length; j++) this.pairs.correction.set([0, 0, 0, 1], 4 * j);
    }
    this.naturalLegRatio = this.rig.legLength / this.src.legLength;
    this.legRatio = options.scaleByLegLength === false ? 1 : this.naturalLegRatio;
    this.lift = this.rig.ankleHeight - this.legRatio * this.src.ankleHeight;
    this.footIK = options.footIK !== false;
    this.teleport = options.teleportDistance ?? 1;
    const J = this.rig.names.length;
    this.rotations = new Float64Array(4 * J);
    this.positions = new Float64Array(3 * J);
    this.locals = Float64Array.from(this.rig.restLocal);
    const tr = this.rig.bones.roles, sr = this.src.bones.roles;
    this.legs = Int32Array.from([
      tr.leftUpperLeg, tr.leftLowerLeg, tr.leftFoot, sr.leftUpperLeg, sr.leftLowerLeg, sr.leftFoot,
      tr.rightUpperLeg, tr.rightLowerLeg, tr.rightFoot, sr.rightUpperLeg, sr.rightLowerLeg, sr.rightFoot,
    ]);
    if (this.footIK) {
      for (let k = 0; k < 2; k++) {
        const [h, kn, f] = [this.legs[6 * k], this.legs[6 * k + 1], this.legs[6 * k + 2]];
        if (this.rig.parents[kn] !== h || this.rig.parents[f] !== kn) {
          // Bones between thigh, knee and foot (segmented deform chains): IK cannot bend them as two bones.
          throw new ThreeRigError('rig', `foot IK needs the ${k === 0 ? 'left' : 'right'} leg as thigh -> knee -> foot with no bone in between ("${this.rig.names[h]}", "${this.rig.names[kn]}", "${this.rig.names[f]}"); map other bones with boneMap or pass { footIK: false }`);
        }
      }
    }
    this.written = Int32Array.from([...this.pairs.source.keys()].filter((j) => this.pairs.source[j] >= 0));
    const how = this.rig.bones.how;
    this.boneMap = [...this.written].map((j) => {
      const role = this.pairs.role[j] ?? '';
      return { role, target: this.rig.names[j], source: this.src.names[this.pairs.source[j]], how: how[role as HumanoidRole] ?? 'shape' };
    });
  }

  /** Forget the character's placement: the next apply() puts it at the controller's root. */
  resetPlacement(): void {
    this.started = false;
  }

  /** Poses and places the character from the controller's output (call after controller.update). */
  apply(c: RetargetSource): void {
    if (c.db !== this.db) throw new RangeError('ThreeRetargeter.apply: the controller plays another database than this retargeter was made for');
    this.place(c);
    this.retarget(c);
    if (this.footIK) { this.plantFoot(c, 0); this.plantFoot(c, 1); this.forwardKinematics(true); }
    this.write(c);
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
    const rig = this.rig, J = rig.names.length, W = this.rotations, src = this.pairs.source, corr = this.pairs.correction;
    const inv = this.invRoot, v = this.v;
    inv[0] = -c.rootRotation[0]; inv[1] = -c.rootRotation[1]; inv[2] = -c.rootRotation[2]; inv[3] = c.rootRotation[3];
    for (let j = 0; j < J; j++) {
      const s = src[j], p = rig.parents[j];
      if (s >= 0) {
        quatMultiply(this.q, 0, inv, 0, c.worldRotations, 4 * s);
        quatMultiply(W, 4 * j, this.q, 0, corr, 4 * j);
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
    this.forwardKinematics(false);
  }

  /**
   * Positions from the rotations (fromLocals false: world rotations given, locals derived) or
   * world transforms from the locals (fromLocals true; the hips' world transform is kept).
   */
  private forwardKinematics(fromLocals: boolean): void {
    const rig = this.rig, J = rig.names.length, W = this.rotations, P = this.positions, L = this.locals;
    for (let j = 1; j < J; j++) {
      const p = rig.parents[j];
      if (fromLocals) {
        composeJoint(P, W, j, P, 3 * p, W, 4 * p, rig.offsets, 3 * j, L, 4 * j);
      } else {
        quatInvMultiply(L, 4 * j, W, 4 * p, W, 4 * j);
        quatRotateVec3(this.v, 0, W, 4 * p, rig.offsets, 3 * j);
        P[3 * j] = P[3 * p] + this.v[0]; P[3 * j + 1] = P[3 * p + 1] + this.v[1]; P[3 * j + 2] = P[3 * p + 2] + this.v[2];
      }
    }
  }

  /**
   * Step 3 for one leg: the ankle goes where the engine's ankle is, scaled about the root; over a
   * ground, at the same height over the ground under it as the engine's (scaled). The knee bends
   * towards the engine's knee; the foot keeps its retargeted world rotation.
   */
  private plantFoot(c: RetargetSource, leg: number): void {
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
    // Pole: the engine's knee offset from its hip, in the root frame.
    for (let d = 0; d < 3; d++) v[d] = wp[3 * sKnee + d] - wp[3 * sHip + d];
    quatRotateVec3(this.pole, 0, inv, 0, v, 0);
    const W = this.rotations, fr = this.footRot;
    fr[0] = W[4 * foot]; fr[1] = W[4 * foot + 1]; fr[2] = W[4 * foot + 2]; fr[3] = W[4 * foot + 3];
    solveTwoBoneIkInto(this.locals, this.positions, this.rotations, this.rig.parents, hip, knee, foot, t, this.ik, this.pole);
    // The foot keeps its retargeted world rotation (flat where the engine's is flat).
    quatInvMultiply(this.locals, 4 * foot, this.rotations, 4 * knee, this.footRot, 0);
  }

  /** Step 4: the driven bones' rotations, the hips' position, the root's placement. */
  private write(c: RetargetSource): void {
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
    // The root: the character's position, the controller's facing turned by the rig's own.
    quatMultiply(q, 4, c.rootRotation, 0, rig.facingTurn, 0);
    this.root.position.fromArray(this.position, 0);
    this.root.quaternion.fromArray(q, 4);
  }
}

