import { frameClipTable } from '../database/frame-clips.js';
import type { Database } from '../database/database.js';
import { poseSource } from '../database/pose-source.js';
import { quatInvMultiply, quatInvRotateVec3, quatMultiply, quatMultiplyInv, quatRotateVec3, quatToScaledAngleAxis, quatYaw } from '../math/quat.js';

/**
 * Per-database data the runtime reads every frame, derived once and shared by every character:
 * the pose with joint 0 expressed relative to the root track (so a pose never carries the clip's
 * world origin), per-frame local velocities for inertialization, and per-frame root velocities in
 * the root's own frame (root motion increments).
 */
export interface DatabaseRuntime {
  readonly db: Database;
  readonly joints: number;
  readonly fps: number;
  /** Clip index of every frame. */
  readonly clipOf: Int32Array;
  /** Local rotations N*J*4, rebased on the root track (see rebaseOnRoot). */
  readonly rotations: Float32Array;
  /** Local translations N*J*3, rebased on the root track. */
  readonly translations: Float32Array;
  /** Local translation velocities N*J*3 (m/s). */
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
  const rebase = rootRebasePlan(db);
  const rotations = new Float32Array(N * J * 4), translations = new Float32Array(N * J * 3);
  const velocities = new Float32Array(N * J * 3);
  const angularVelocities = new Float32Array(N * J * 3);
  const rootVelocity = new Float32Array(N * 3);
  const rootYawRate = new Float32Array(N);
  // The rebased pose of two frames at a time, in float64 (the math helpers take Float64Array only;
  // the velocities are differences of these, the stored pose their float32 rounding): whole-database
  // float64 copies were 2.4 times the database's pose arrays in fresh memory (the real set: 62 MB),
  // most of this function's time on a VM whose first write to a page costs 2.6 ns a byte.
  let rotA = new Float64Array(J * 4), posA = new Float64Array(J * 3);
  let rotB = new Float64Array(J * 4), posB = new Float64Array(J * 3);
  const v = new Float64Array(6), r = new Float64Array(4);
  for (const c of db.clips) {
    rebasedFrame(db, rebase, c.start, rootPos, rootRot, rotA, posA);
    for (let k = 0; k < c.count; k++) {
      const f = c.start + k;
      storeFrame(rotations, translations, f, rotA, posA);
      // Forward difference from frame f to f + 1 (into B); a clip's last frame repeats the backward
      // one (the difference just taken, still in A and B); a single-frame clip is still.
      const last = k === c.count - 1;
      if (!last) rebasedFrame(db, rebase, f + 1, rootPos, rootRot, rotB, posB);
      const ra = c.count === 1 ? rotA : last ? rotB : rotA, rb = c.count === 1 ? rotA : last ? rotA : rotB;
      const pa = c.count === 1 ? posA : last ? posB : posA, pb = c.count === 1 ? posA : last ? posA : posB;
      for (let j = 0; j < J; j++) {
        for (let d = 0; d < 3; d++) velocities[(f * J + j) * 3 + d] = (pb[3 * j + d] - pa[3 * j + d]) * fps;
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
  return {
    db, joints: J, fps, clipOf, rotations, translations,
    velocities, angularVelocities, rootVelocity, rootYawRate, movingTranslations: movingJoints(translations, N, J), rootRelativeJoint: rebase.moving,
  };
}

/** Frame f's pose (J*4 rotations, J*3 translations) into the stored float32 arrays. */
function storeFrame(rotations: Float32Array, translations: Float32Array, f: number, rot: Float64Array, pos: Float64Array): void {
  rotations.set(rot, f * rot.length);
  translations.set(pos, f * pos.length);
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
