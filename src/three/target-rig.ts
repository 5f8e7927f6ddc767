/**
 * The character's side of the retargeting: its bones as a flat, parents-first rig (the hips first)
 * with the bind pose in the engine's root frame — metres, +Y up, facing the way the database's
 * rest pose faces — so that the per-step work is plain array arithmetic (forward kinematics,
 * two-bone IK) and three.js objects are touched once per step, to write the result.
 *
 * Frames: C is the character root object's frame with its own scale applied (what the bind pose is
 * measured in: an armature scaled 0.01 over centimetre bones comes out in metres); R is C turned
 * about +Y by `facingTurn` so that the character faces where the database's rest pose faces.
 */
import { Matrix4, PropertyBinding, Quaternion, Vector3, type Object3D } from 'three';
import { ThreeRigError } from './errors.js';
import { findHumanoidBones, HUMANOID_ROLES, type HumanoidBones, type HumanoidRole } from './find-bones.js';
import type { SelectedSkeleton } from './select-skeleton.js';
import { facingOf, legOf } from './source-rig.js';

export interface TargetRig {
  /** The driven objects, parents first; [0] is the hips. */
  readonly objects: readonly Object3D[];
  readonly names: readonly string[];
  /** Parent per joint within the rig (-1 for the hips). */
  readonly parents: Int32Array;
  /** Bind offset of each joint from its parent, in the parent's bind frame (R units: metres). */
  readonly offsets: Float64Array;
  /**
   * Local rotations (J*4) of the joints as they stood when the rig was made, relative to their
   * parents (the node pose): what a bone nothing drives keeps (a file's curled fingers stay curled,
   * even when the skin was bound with them straight).
   */
  readonly restLocal: Float64Array;
  /** Bind world rotations and positions in R (J*4, J*3). */
  readonly restRot: Float64Array;
  readonly restPos: Float64Array;
  /** The hips' parent in R: position, rotation, uniform scale (constant: nothing above the hips is driven). */
  readonly frameRot: Float64Array;
  readonly framePos: Float64Array;
  readonly frameScale: number;
  /** Turn about +Y from C to R (x, y, z, w). */
  readonly facingTurn: Float64Array;
  /** Humanoid bones as rig joint indices. */
  readonly bones: HumanoidBones;
  readonly legLength: number;
  /** Mean bind height of the ankles above the character's floor (m). */
  readonly ankleHeight: number;
}

/** Relative tolerance of "uniform" scale. */
const SCALE_TOLERANCE = 1e-3;

/**
 * Builds the rig from the selected skeleton. `boneMap` (role -> bone name) wins over the finder;
 * `sourceFacing` is the yaw the database's rest pose faces.
 */
export function buildTargetRig(sel: SelectedSkeleton, boneMap: Partial<Record<string, string>>, sourceFacing: number): TargetRig {
  const root = sel.root;
  root.updateWorldMatrix(true, true);
  // C-space matrices of the bind pose: root scale * inverse(root world) * object's bind world.
  const toC = new Matrix4().makeScale(root.scale.x, root.scale.y, root.scale.z).multiply(new Matrix4().copy(root.matrixWorld).invert());
  const bindWorld = bindWorldMatrices(sel);
  const matC = (o: Object3D): Matrix4 => new Matrix4().multiplyMatrices(toC, bindWorldOf(o, bindWorld));

  // The finder's view of every candidate bone.
  const cand = sel.bones;
  const index = new Map(cand.map((b, i) => [b, i]));
  const names = cand.map((b) => b.name);
  const parentsAll = Int32Array.from(cand, (b) => { for (let p = b.parent; p; p = p.parent) { const i = index.get(p); if (i !== undefined) return i; } return -1; });
  const restAll = new Float64Array(3 * cand.length);
  const v = new Vector3();
  cand.forEach((b, i) => { v.setFromMatrixPosition(matC(b)); restAll[3 * i] = v.x; restAll[3 * i + 1] = v.y; restAll[3 * i + 2] = v.z; });
  const given: Partial<Record<HumanoidRole, number>> = {};
  for (const [role, name] of Object.entries(boneMap)) {
    if (name === undefined) continue;
    if (!(HUMANOID_ROLES as readonly string[]).includes(role)) throw new ThreeRigError('bad-bone-map', `boneMap: unknown role "${role}" (roles: ${HUMANOID_ROLES.join(', ')})`);
    // three's loaders sanitize node names ("mixamorig:Hips" loads as "mixamorigHips"): either spelling finds the bone.
    let i = names.indexOf(name);
    if (i < 0) i = names.indexOf(PropertyBinding.sanitizeNodeName(name));
    if (i < 0) throw new ThreeRigError('bad-bone-map', `boneMap: ${role}: "${name}" names no bone of the character (bones: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', ...' : ''})`);
    given[role as HumanoidRole] = i;
  }
  const found = findHumanoidBones({ names, parents: parentsAll, rest: restAll }, given, 'the character', "; name it with the boneMap option, e.g. { boneMap: { ROLE: 'BONE_NAME' } }");

  // The flat rig: the hips and every object below it that is a bone or leads to one, parents first.
  const hips = cand[found.roles.hips];
  const objects: Object3D[] = [];
  const parents: number[] = [];
  const leadsToBone = (o: Object3D): boolean => { let any = false; o.traverse((c) => { if (c !== o && (c as { isBone?: boolean }).isBone) any = true; }); return any; };
  const visit = (o: Object3D, parent: number): void => {
    const at = objects.length;
    objects.push(o); parents.push(parent);
    for (const c of o.children) if ((c as { isBone?: boolean }).isBone || leadsToBone(c)) visit(c, at);
  };
  visit(hips, -1);
  const flat = new Map(objects.map((o, i) => [o, i]));
  const roles = Object.fromEntries(HUMANOID_ROLES.map((r) => [r, -1])) as Record<HumanoidRole, number>;
  for (const r of HUMANOID_ROLES) {
    const j = found.roles[r];
    if (j < 0) continue;
    const f = flat.get(cand[j]);
    if (f === undefined) throw new ThreeRigError('rig', `the ${r} bone "${cand[j].name}" is not below the hips "${hips.name}": a driven bone must hang from the hips`);
    roles[r] = f;
  }
  const spineChain = found.spineChain.map((j) => flat.get(cand[j]) ?? -1).filter((j) => j >= 0);
  const bones: HumanoidBones = { roles, spineChain, how: found.how };

  // Bind transforms in C, then R.
  const J = objects.length;
  const posC = new Float64Array(3 * J), rotC = new Float64Array(4 * J);
  const q = new Quaternion(), s = new Vector3();
  // The node pose's local rotations (restLocal): each node's world rotation against its parent's, in C.
  const nodeRot = objects.map((o) => { new Matrix4().multiplyMatrices(toC, o.matrixWorld).decompose(v, q, s); return q.clone(); });
  objects.forEach((o, j) => {
    matC(o).decompose(v, q, s);
    if (Math.abs(s.x - s.y) > SCALE_TOLERANCE * Math.abs(s.x) || Math.abs(s.x - s.z) > SCALE_TOLERANCE * Math.abs(s.x)) {
      throw new ThreeRigError('rig', `bone "${o.name}" has a non-uniform scale (${s.x.toFixed(4)}, ${s.y.toFixed(4)}, ${s.z.toFixed(4)}): apply the scale in your 3D tool before export`);
    }
    posC.set([v.x, v.y, v.z], 3 * j); rotC.set([q.x, q.y, q.z, q.w], 4 * j);
  });
  const frameM = hips.parent && hips.parent !== root ? matC(hips.parent) : new Matrix4().makeScale(root.scale.x, root.scale.y, root.scale.z);
  frameM.decompose(v, q, s);
  const frameScale = s.x;
  // Facing: turn the character to face where the database's rest pose faces (snapped to quarter turns
  // when within 10 degrees: bind poses are rarely exactly symmetric).
  let turn = wrap(sourceFacing - facingOf(posC, roles.leftUpperLeg, roles.rightUpperLeg));
  const quarter = Math.round(turn / (Math.PI / 2)) * (Math.PI / 2);
  if (Math.abs(turn - quarter) < (10 * Math.PI) / 180) turn = quarter;
  const facingTurn = new Float64Array([0, Math.sin(turn / 2), 0, Math.cos(turn / 2)]);
  const yaw = new Quaternion(0, facingTurn[1], 0, facingTurn[3]);
  const restPos = new Float64Array(3 * J), restRot = new Float64Array(4 * J);
  for (let j = 0; j < J; j++) {
    v.set(posC[3 * j], posC[3 * j + 1], posC[3 * j + 2]).applyQuaternion(yaw);
    restPos.set([v.x, v.y, v.z], 3 * j);
    q.set(rotC[4 * j], rotC[4 * j + 1], rotC[4 * j + 2], rotC[4 * j + 3]).premultiply(yaw);
    restRot.set([q.x, q.y, q.z, q.w], 4 * j);
  }
  const framePos = new Float64Array(3), frameRot = new Float64Array(4);
  frameM.decompose(v, q, s);
  v.applyQuaternion(yaw); q.premultiply(yaw);
  framePos.set([v.x, v.y, v.z]); frameRot.set([q.x, q.y, q.z, q.w]);
  // Offsets and bind locals relative to the parent's bind frame.
  const offsets = new Float64Array(3 * J), restLocal = new Float64Array(4 * J);
  const pq = new Quaternion();
  const frameNode = new Quaternion();
  (hips.parent && hips.parent !== root ? new Matrix4().multiplyMatrices(toC, hips.parent.matrixWorld) : new Matrix4()).decompose(v, frameNode, s);
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    if (p < 0) { pq.set(frameRot[0], frameRot[1], frameRot[2], frameRot[3]); v.set(restPos[0] - framePos[0], restPos[1] - framePos[1], restPos[2] - framePos[2]); }
    else { pq.set(restRot[4 * p], restRot[4 * p + 1], restRot[4 * p + 2], restRot[4 * p + 3]); v.set(restPos[3 * j] - restPos[3 * p], restPos[3 * j + 1] - restPos[3 * p + 1], restPos[3 * j + 2] - restPos[3 * p + 2]); }
    pq.invert();
    v.applyQuaternion(pq);
    offsets.set([v.x, v.y, v.z], 3 * j);
    // (in C: the turn to R is the same on both sides)
    q.copy(p < 0 ? frameNode : nodeRot[p]).invert().multiply(nodeRot[j]);
    restLocal.set([q.x, q.y, q.z, q.w], 4 * j);
  }
  const legLength = 0.5 * (legOf(restPos, roles.leftUpperLeg, roles.leftLowerLeg, roles.leftFoot) + legOf(restPos, roles.rightUpperLeg, roles.rightLowerLeg, roles.rightFoot));
  if (!(legLength > 1e-6)) throw new ThreeRigError('rig', 'the legs have no length in the bind pose');
  // The floor: the root's origin (characters stand on it), unless the bind pose is far from it.
  let low = Infinity;
  for (let j = 0; j < J; j++) low = Math.min(low, restPos[3 * j + 1]);
  const floor = Math.abs(low) < 0.1 * legLength ? 0 : low;
  const ankleHeight = 0.5 * (restPos[3 * roles.leftFoot + 1] + restPos[3 * roles.rightFoot + 1]) - floor;
  return {
    objects, names: objects.map((o) => o.name), parents: Int32Array.from(parents), offsets, restLocal, restRot, restPos,
    frameRot, framePos, frameScale, facingTurn, bones, legLength, ankleHeight,
  };
}

/**
 * World matrices of the skinned bones in the pose the skins were bound in, from the inverse bind
 * matrices, at the meshes' current placement: mesh world * inverse(bindMatrix) * inverse(boneInverse)
 * (what three's skinning draws as the undeformed mesh). A file saved while posed has node transforms
 * that are not its bind pose; taken as the bind pose, they were retargeted onto as if the capture's
 * rest looked like that pose (a character saved with bent knees walked with its knees straight).
 * A bone whose inverse bind matrix cannot be inverted is left out (its node pose is used).
 */
export function bindWorldMatrices(sel: SelectedSkeleton): Map<Object3D, Matrix4> {
  const out = new Map<Object3D, Matrix4>();
  for (const mesh of sel.meshes) {
    const skeleton = mesh.skeleton;
    if (!skeleton) continue;
    mesh.updateWorldMatrix(true, false);
    const base = new Matrix4().copy(mesh.bindMatrix).invert().premultiply(mesh.matrixWorld);
    skeleton.bones.forEach((bone, i) => {
      const inverse = skeleton.boneInverses[i];
      if (out.has(bone) || !inverse || Math.abs(inverse.determinant()) < 1e-12) return;
      const bind = new Matrix4().copy(inverse).invert().premultiply(base);
      // In the bind pose (most files) the node transform is kept: exact, where the float32 inverse
      // bind matrix inverted again is only close (1e-7).
      bone.updateWorldMatrix(true, false);
      if (!sameTransform(bind, bone.matrixWorld)) out.set(bone, bind);
    });
  }
  return out;
}

/** Whether two affine matrices agree within BIND_TOLERANCE, relative to their size. */
function sameTransform(a: Matrix4, b: Matrix4): boolean {
  let size = 0, diff = 0;
  for (let k = 0; k < 16; k++) { size = Math.max(size, Math.abs(a.elements[k])); diff = Math.max(diff, Math.abs(a.elements[k] - b.elements[k])); }
  return diff <= BIND_TOLERANCE * Math.max(size, 1e-9);
}

/** Relative difference under which a node transform is the bind pose (inverse bind matrices are float32). */
const BIND_TOLERANCE = 1e-5;

/**
 * An object's bind world matrix: the skins' (bindWorldMatrices), else, for a node between bones that
 * no skin binds, its parent's bind world times its own local transform, else its world matrix.
 */
function bindWorldOf(o: Object3D, bound: Map<Object3D, Matrix4>): Matrix4 {
  const known = bound.get(o);
  if (known) return known;
  const parent = o.parent ? bound.get(o.parent) : undefined;
  if (!parent) return o.matrixWorld;
  const m = new Matrix4().multiplyMatrices(parent, o.matrix);
  bound.set(o, m);
  return m;
}

function wrap(a: number): number {
  return Math.atan2(Math.sin(a), Math.cos(a));
}
