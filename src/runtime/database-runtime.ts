import { frameClipTable } from '../database/frame-clips.js';
import type { Database } from '../database/database.js';
import { poseSource } from '../database/pose-source.js';
import { quatInvMultiply, quatInvRotateVec3, quatMultiply, quatMultiplyInv, quatRotateVec3, quatToScaledAngleAxis, quatYaw } from '../math/quat.js';

/**
 * Per-database data the runtime reads every frame, derived once and shared by every character:
 * the pose with the body expressed relative to the root track (so a pose never carries the clip's
 * world origin), per-frame local velocities for inertialization, and per-frame root velocities in
 * the root's own frame (root motion increments).
 *
 * The rebased pose is not a copy of the database's: every joint's local transform is the one the
 * database stores (db.rotations N*J*4, db.translations N*J*3) except the joint that carries the body
 * relative to the root track (rootRelativeJoint: its own per-frame arrays) and the joints above it,
 * which are identity (jointSource says which is which; framePoseAt reads a whole frame). A copy
 * held the database's poses twice, and translation velocities that are zero for most joints: on the
 * shared real captures 37 of the 59 MB these tables took, each written for the first time on every
 * load (docs/runtime.md, "What a database costs in memory").
 */
export interface DatabaseRuntime {
  readonly db: Database;
  readonly joints: number;
  readonly fps: number;
  /** Clip index of every frame. */
  readonly clipOf: Int32Array;
  /** Per joint: where its rebased local transform comes from (SOURCE_DATABASE, SOURCE_ROOT_RELATIVE, SOURCE_IDENTITY). */
  readonly jointSource: Uint8Array;
  /** The joints whose source is not the database (the root-relative joint and those above it), in order. */
  readonly rebasedJoints: Int32Array;
  /** The root-relative joint's local rotation per frame, N*4, relative to the root track (see rebaseOnRoot). */
  readonly rootRelativeRotations: Float32Array;
  /** The root-relative joint's local translation per frame, N*3. */
  readonly rootRelativeTranslations: Float32Array;
  /** The joints whose local translation velocity is stored (those whose translation changes within a clip, and the root-relative joint), in order; every other joint's is exactly 0. */
  readonly velocityJoints: Int32Array;
  /** Local translation velocities (m/s) of velocityJoints, N*V*3 (frame-major, then velocityJoints' order). */
  readonly velocities: Float32Array;
  /** Local angular velocities N*J*3 (rad/s, parent frame). */
  readonly angularVelocities: Float32Array;
  /** Root velocity in the root's frame N*3 (m/s) and yaw rate N (rad/s), forward differences. */
  readonly rootVelocity: Float32Array;
  readonly rootYawRate: Float32Array;
  /**
   * Joints whose local translation is not the same in every frame (usually only the one carrying
   * the root-relative motion). The others are bit-identical everywhere, so blending or
   * inertializing their translations is a no-op the per-frame path skips.
   */
  readonly movingTranslations: Int32Array;
  /** The joint that carries the pose relative to the root track (the hips, or joint 0; see rebaseOnRoot). */
  readonly rootRelativeJoint: number;
}

/** jointSource: the database's own local transform. */
export const SOURCE_DATABASE = 0;
/** jointSource: the root-relative joint (rootRelativeRotations / rootRelativeTranslations). */
export const SOURCE_ROOT_RELATIVE = 1;
/** jointSource: a joint above the root-relative one, flattened to identity (no rotation, no translation). */
export const SOURCE_IDENTITY = 2;

/** The identity rotation and the zero translation of a flattened joint, as float32 like the other sources (one array type in the per-frame loops). */
export const IDENTITY_ROTATION = new Float32Array([0, 0, 0, 1]);
export const ZERO_TRANSLATION = new Float32Array(3);

const cache = new WeakMap<Database, DatabaseRuntime>();

/** The shared runtime view of a database (computed on first use, then cached per database). */
export function databaseRuntime(db: Database): DatabaseRuntime {
  const rt = cache.get(db);
  if (rt) return rt;
  // A copy sharing the poses (reweighted) gets the same tables, pointing at itself.
  const source = poseSource(db);
  if (source !== db) return adoptDatabaseRuntime(db, databaseRuntime(source));
  const computed = computeDatabaseRuntime(db);
  cache.set(db, computed);
  return computed;
}

export function computeDatabaseRuntime(db: Database): DatabaseRuntime {
  const N = db.frameCount, J = db.skeleton.names.length, fps = db.fps;
  const clipOf = frameClipTable(db);
  const rootRot = Float64Array.from(db.rootRotations), rootPos = Float64Array.from(db.rootPositions);
  const rebase = rootRebasePlan(db), m = rebase.moving;
  const jointSource = new Uint8Array(J);
  for (const j of rebase.path) jointSource[j] = j === m ? SOURCE_ROOT_RELATIVE : rebase.flatten ? SOURCE_IDENTITY : SOURCE_DATABASE;
  const rebasedJoints = Int32Array.from(rebase.path.filter((j) => jointSource[j] !== SOURCE_DATABASE)).sort();
  // Joints whose stored translation changes within a clip keep their velocities, and the
  // root-relative joint always (its rebased translation is only known below; in float64 it may move
  // where its float32 rounding does not). Every other joint's translation is the same float32
  // throughout each clip, so its velocity (a difference of two frames of one clip) is exactly 0;
  // captures whose files each hold their own rest offsets differ between clips only (the shared
  // real captures: 21 of 22 joints).
  const varying = varyingDatabaseTranslations(db, jointSource);
  const velocityJoints = Int32Array.from(new Set([...varying.filter((j) => changesWithinAClip(db, j)), m])).sort();
  const V = velocityJoints.length;
  const rootRelativeRotations = new Float32Array(N * 4), rootRelativeTranslations = new Float32Array(N * 3);
  const velocities = new Float32Array(N * V * 3);
  const angularVelocities = new Float32Array(N * J * 3);
  const rootVelocity = new Float32Array(N * 3);
  const rootYawRate = new Float32Array(N);
  // The rebased pose of two frames at a time, in float64 (the math helpers take Float64Array only;
  // the velocities are differences of these, the stored root-relative transform their float32 rounding).
  let rotA = new Float64Array(J * 4), posA = new Float64Array(J * 3);
  let rotB = new Float64Array(J * 4), posB = new Float64Array(J * 3);
  const v = new Float64Array(6), r = new Float64Array(4);
  for (const c of db.clips) {
    rebasedFrame(db, rebase, c.start, rootPos, rootRot, rotA, posA);
    for (let k = 0; k < c.count; k++) {
      const f = c.start + k;
      storeRootRelative(rootRelativeRotations, rootRelativeTranslations, f, m, rotA, posA);
      // Forward difference from frame f to f + 1 (into B); a clip's last frame repeats the backward
      // one (the difference just taken, still in A and B); a single-frame clip is still.
      const last = k === c.count - 1;
      if (!last) rebasedFrame(db, rebase, f + 1, rootPos, rootRot, rotB, posB);
      const ra = c.count === 1 ? rotA : last ? rotB : rotA, rb = c.count === 1 ? rotA : last ? rotA : rotB;
      const pa = c.count === 1 ? posA : last ? posB : posA, pb = c.count === 1 ? posA : last ? posA : posB;
      for (let i = 0; i < V; i++) {
        const j = velocityJoints[i];
        for (let d = 0; d < 3; d++) velocities[(f * V + i) * 3 + d] = (pb[3 * j + d] - pa[3 * j + d]) * fps;
      }
      for (let j = 0; j < J; j++) {
        quatMultiplyInv(r, 0, rb, 4 * j, ra, 4 * j);
        quatToScaledAngleAxis(v, 0, r, 0);
        for (let d = 0; d < 3; d++) angularVelocities[(f * J + j) * 3 + d] = v[d] * fps;
      }
      const a = c.count === 1 ? c.start : last ? f - 1 : f;
      const b = c.count === 1 ? c.start : a + 1;
      v[0] = rootPos[3 * b] - rootPos[3 * a];
      v[1] = rootPos[3 * b + 1] - rootPos[3 * a + 1];
      v[2] = rootPos[3 * b + 2] - rootPos[3 * a + 2];
      quatInvRotateVec3(v, 3, rootRot, 4 * a, v, 0);
      rootVelocity[3 * f] = v[3] * fps; rootVelocity[3 * f + 1] = v[4] * fps; rootVelocity[3 * f + 2] = v[5] * fps;
      quatInvMultiply(r, 0, rootRot, 4 * a, rootRot, 4 * b);
      rootYawRate[f] = quatYaw(r, 0) * fps;
      // Frame f + 1 becomes A (on a clip's last frame A stays: nothing reads it again).
      if (!last) { const t = rotA; rotA = rotB; rotB = t; const u = posA; posA = posB; posB = u; }
    }
  }
  const moves = movingJoints(rootRelativeTranslations, N, 1).length > 0;
  const movingTranslations = Int32Array.from(new Set([...varying, ...(moves ? [m] : [])])).sort();
  return {
    db, joints: J, fps, clipOf, jointSource, rebasedJoints, rootRelativeRotations, rootRelativeTranslations, velocityJoints, velocities,
    angularVelocities, rootVelocity, rootYawRate, movingTranslations, rootRelativeJoint: m,
  };
}

/** Frame f's root-relative joint `m` (its local rotation and translation in `rot` J*4 and `pos` J*3) into the stored float32 arrays. */
function storeRootRelative(rotations: Float32Array, translations: Float32Array, f: number, m: number, rot: Float64Array, pos: Float64Array): void {
  for (let k = 0; k < 4; k++) rotations[4 * f + k] = rot[4 * m + k];
  for (let k = 0; k < 3; k++) translations[3 * f + k] = pos[3 * m + k];
}

/** The joints read from the database (jointSource SOURCE_DATABASE) whose stored translation differs from frame 0's in some frame. */
function varyingDatabaseTranslations(db: Database, jointSource: Uint8Array): number[] {
  const all = movingJoints(db.translations, db.frameCount, jointSource.length);
  return Array.from(all).filter((j) => jointSource[j] === SOURCE_DATABASE);
}

/** Whether joint j's stored translation differs between two frames of one clip. */
function changesWithinAClip(db: Database, j: number): boolean {
  const T = db.translations, J = db.skeleton.names.length;
  for (const c of db.clips) {
    const a = (c.start * J + j) * 3;
    for (let f = c.start + 1; f < c.start + c.count; f++) {
      const b = (f * J + j) * 3;
      if (T[b] !== T[a] || T[b + 1] !== T[a + 1] || T[b + 2] !== T[a + 2]) return true;
    }
  }
  return false;
}

/** Joints whose translation (3 floats per joint per frame) differs from frame 0's in some frame. */
export function movingJoints(translations: Float32Array, frames: number, joints: number): Int32Array {
  const out: number[] = [];
  for (let j = 0; j < joints; j++) {
    let moves = false;
    for (let f = 1; f < frames && !moves; f++) {
      const a = 3 * j, b = (f * joints + j) * 3;
      moves = translations[b] !== translations[a] || translations[b + 1] !== translations[a + 1] || translations[b + 2] !== translations[a + 2];
    }
    if (moves) out.push(j);
  }
  return Int32Array.from(out);
}

/**
 * Frame f's rebased local pose (as the runtime plays it: see DatabaseRuntime) into `rot` (J*4 from
 * rotAt) and `pos` (J*3 from posAt), float32 values widened.
 */
export function framePoseAt(rt: DatabaseRuntime, f: number, rot: Float64Array | Float32Array, rotAt: number, pos: Float64Array | Float32Array, posAt: number): void {
  const J = rt.joints, R = rt.db.rotations, T = rt.db.translations, r0 = f * J * 4, p0 = f * J * 3;
  for (let i = 0; i < 4 * J; i++) rot[rotAt + i] = R[r0 + i];
  for (let i = 0; i < 3 * J; i++) pos[posAt + i] = T[p0 + i];
  patchRebasedJoints(rt, f, rot, rotAt, pos, posAt);
}

/** Overwrites, in a frame's pose copied from the database (framePoseAt), the joints the rebase changes: the root-relative joint and the flattened ones above it. */
function patchRebasedJoints(rt: DatabaseRuntime, f: number, rot: Float64Array | Float32Array, rotAt: number, pos: Float64Array | Float32Array, posAt: number): void {
  const src = rt.jointSource, list = rt.rebasedJoints;
  for (let i = 0; i < list.length; i++) {
    const j = list[i], rel = src[j] === SOURCE_ROOT_RELATIVE;
    const RR = rel ? rt.rootRelativeRotations : IDENTITY_ROTATION, ro = rel ? 4 * f : 0;
    const TT = rel ? rt.rootRelativeTranslations : ZERO_TRANSLATION, to = rel ? 3 * f : 0;
    for (let d = 0; d < 4; d++) rot[rotAt + 4 * j + d] = RR[ro + d];
    for (let d = 0; d < 3; d++) pos[posAt + 3 * j + d] = TT[to + d];
  }
}

/** Joint j's rebased local translation and rotation at frame f into t[0..3] and r[0..4]. */
export function jointLocalAt(rt: DatabaseRuntime, f: number, j: number, t: Float64Array, r: Float64Array): void {
  const k = rt.jointSource[j];
  const T = k === SOURCE_DATABASE ? rt.db.translations : k === SOURCE_ROOT_RELATIVE ? rt.rootRelativeTranslations : ZERO_TRANSLATION;
  const R = k === SOURCE_DATABASE ? rt.db.rotations : k === SOURCE_ROOT_RELATIVE ? rt.rootRelativeRotations : IDENTITY_ROTATION;
  const to = k === SOURCE_DATABASE ? (f * rt.joints + j) * 3 : k === SOURCE_ROOT_RELATIVE ? 3 * f : 0;
  const ro = k === SOURCE_DATABASE ? (f * rt.joints + j) * 4 : k === SOURCE_ROOT_RELATIVE ? 4 * f : 0;
  t[0] = T[to]; t[1] = T[to + 1]; t[2] = T[to + 2];
  r[0] = R[ro]; r[1] = R[ro + 1]; r[2] = R[ro + 2]; r[3] = R[ro + 3];
}

/** The rebased local rotations of frames [from, from + count) (count*J*4; a new array). */
export function framesRotations(rt: DatabaseRuntime, from: number, count: number): Float32Array {
  const J = rt.joints, out = new Float32Array(count * J * 4), pos = new Float32Array(J * 3);
  for (let k = 0; k < count; k++) framePoseAt(rt, from + k, out, k * J * 4, pos, 0);
  return out;
}

/** How rebasedFrame rewrites a pose: the joints from the root to the one that carries the body (`path`, ending at `moving`), and whether those above it are flattened. */
export interface RootRebasePlan {
  readonly path: readonly number[];
  readonly moving: number;
  readonly flatten: boolean;
}

/**
 * Where the character's motion goes when a pose is rebased on the root track (rebasedFrame): one
 * joint, relative to the root track. Where the body hangs below joints that only carry the clip's
 * world placement (a reference "root" joint, as in much real mocap), those joints become identity
 * at the root's origin and the first joint that holds the body (the hips, or the joint where spine
 * and legs branch) takes the root-relative transform; otherwise joint 0 does. Either way no local
 * transform holds the asset's world origin, so blending or inertializing two frames from different
 * clips never mixes world positions.
 */
export function rootRebasePlan(db: Database): RootRebasePlan {
  const J = db.skeleton.names.length, parents = db.skeleton.parents;
  const chain: number[] = [];
  for (let j = db.roles.hips; j >= 0; j = parents[j]) chain.unshift(j);
  // From the root down towards the hips, the joints with one child only carry the clip's placement
  // and are flattened; the first that holds more (the body branching into spine and legs, or the
  // hips themselves) carries the body. A pelvis under the hips beside the spine (Daz Genesis) left
  // the reference root joint carrying the body while the hips above the pelvis held the asset's
  // world position: inertializing two clips mixed those (joint_Root 14-16 m/s at transitions).
  const children = new Int32Array(J);
  for (let j = 0; j < J; j++) if (parents[j] >= 0) children[parents[j]]++;
  let k = 0;
  while (k < chain.length - 1 && children[chain[k]] === 1) k++;
  return { path: chain.slice(0, k + 1), moving: chain[k], flatten: k > 0 };
}

// Temporaries of rebasedFrame.
const REBASE_WR = new Float64Array(4), REBASE_WP = new Float64Array(3), REBASE_V = new Float64Array(3);

/**
 * Frame f of the database's local pose, in float64, rebased on the root track as `plan` says, into
 * `rotations` (J*4) and `translations` (J*3). `rootPos` / `rootRot`: the root track in float64.
 */
export function rebasedFrame(db: Database, plan: RootRebasePlan, f: number, rootPos: Float64Array, rootRot: Float64Array, rotations: Float64Array, translations: Float64Array): void {
  const J = db.skeleton.names.length;
  for (let i = 0; i < 4 * J; i++) rotations[i] = db.rotations[f * J * 4 + i];
  for (let i = 0; i < 3 * J; i++) translations[i] = db.translations[f * J * 3 + i];
  const wr = REBASE_WR, wp = REBASE_WP, v = REBASE_V, moving = plan.moving;
  // World transform of `moving` through its ancestors.
  wr[0] = 0; wr[1] = 0; wr[2] = 0; wr[3] = 1; wp[0] = 0; wp[1] = 0; wp[2] = 0;
  for (const j of plan.path) {
    quatRotateVec3(v, 0, wr, 0, translations, 3 * j);
    wp[0] += v[0]; wp[1] += v[1]; wp[2] += v[2];
    quatMultiply(wr, 0, wr, 0, rotations, 4 * j);
  }
  if (plan.flatten) {
    for (const a of plan.path) {
      if (a === moving) break;
      rotations[4 * a] = 0; rotations[4 * a + 1] = 0; rotations[4 * a + 2] = 0; rotations[4 * a + 3] = 1;
      translations[3 * a] = 0; translations[3 * a + 1] = 0; translations[3 * a + 2] = 0;
    }
  }
  v[0] = wp[0] - rootPos[3 * f]; v[1] = wp[1] - rootPos[3 * f + 1]; v[2] = wp[2] - rootPos[3 * f + 2];
  quatInvRotateVec3(translations, 3 * moving, rootRot, 4 * f, v, 0);
  quatInvMultiply(rotations, 4 * moving, rootRot, 4 * f, wr, 0);
}

/** Registers a runtime computed elsewhere (e.g. received from the main thread) for `db`. */
export function adoptDatabaseRuntime(db: Database, rt: DatabaseRuntime): DatabaseRuntime {
  const adopted = { ...rt, db };
  cache.set(db, adopted);
  return adopted;
}
