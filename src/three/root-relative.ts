/**
 * rootRelativeSkinning (ThreeRetargeterOptions): what a skinned mesh's own methods become while the
 * retargeter writes its skinning matrices relative to the character's root and holds its
 * bindMatrixInverse.
 */
import { Matrix4, Object3D, SkinnedMesh, type Vector3 } from 'three';

/**
 * A skinned mesh's updateMatrixWorld under rootRelativeSkinning: three's Object3D one, without
 * SkinnedMesh's setting bindMatrixInverse to the inverse of the world matrix (it is held).
 */
export function relativeUpdateMatrixWorld(this: SkinnedMesh, force?: boolean): void {
  Object3D.prototype.updateMatrixWorld.call(this, force);
}

/** Per mesh (made on first use): the world matrix last inverted, and its inverse. */
const WORLD_INVERSES = new WeakMap<SkinnedMesh, [Matrix4, Matrix4]>();
const threesApplyBoneTransform = SkinnedMesh.prototype.applyBoneTransform as (index: number, target: Vector3) => Vector3;

/**
 * A skinned mesh's applyBoneTransform (getVertexPosition: raycasts, bounding volumes) under
 * rootRelativeSkinning: three's, reading the bone objects, mapped back with the inverse of the
 * world matrix (what three's bindMatrixInverse would be) instead of the held bindMatrixInverse.
 */
export function relativeApplyBoneTransform(this: SkinnedMesh, index: number, target: Vector3): Vector3 {
  let pair = WORLD_INVERSES.get(this);
  if (!pair) { pair = [new Matrix4().copy(this.matrixWorld), new Matrix4().copy(this.matrixWorld).invert()]; WORLD_INVERSES.set(this, pair); }
  if (!pair[0].equals(this.matrixWorld)) { pair[0].copy(this.matrixWorld); pair[1].copy(this.matrixWorld).invert(); }
  const held = this.bindMatrixInverse;
  this.bindMatrixInverse = pair[1];
  try { return threesApplyBoneTransform.call(this, index, target); } finally { this.bindMatrixInverse = held; }
}
