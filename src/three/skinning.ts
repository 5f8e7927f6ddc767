/**
 * Skinning matrices straight from the retargeter's pose (ThreeRetargeter output 'matrices', the
 * crowd path). three's own path — write each bone's quaternion (which recomputes its Euler angles),
 * updateMatrixWorld (a local and a world matrix per bone), skeleton.update (boneWorld × boneInverse
 * per bone) — costs several times the engine's own step for a crowd. Here one pass per skeleton
 * writes `skeleton.boneMatrices` from the flat pose the retargeter already holds:
 *
 *   boneMatrices[i] = rootFrame × [s_j R(W_j) | P_j] × boneInverse_i
 *
 * with W_j, P_j the rig joint's rotation and position in the rig frame R (target-rig.ts), s_j its
 * constant scale in R, and rootFrame = root.matrixWorld × inverse(Yaw × rootScale) the map from R to
 * the world (what three's hierarchy composes to, since the retargeter writes the root's placement).
 * Bones nothing drives keep their bind local transform, so when their inverse bind matrix is their
 * parent's times their inverse bind local (a skin bound in the node pose, as exporters write it),
 * their skinning matrix IS their parent's: fingers, twist bones and end bones are a 16-float copy,
 * or nothing at all once the mesh's geometry sends their vertices to the bone they copy
 * (geometryWithoutCopies). Bones outside the rig but under the root (a root bone above the hips) are
 * constant in R; bones outside the root are left to three's formula.
 *
 * With rootRelativeSkinning (retargeter.ts) rootFrame is the identity (IDENTITY_AFFINE: the product
 * is skipped) and each mesh's bindMatrixInverse carries the map from R to the mesh's frame instead.
 *
 * The matrices are computed when three asks for them (skeleton.update, which the renderer calls once
 * per frame for every skinned mesh it draws, after updating world matrices): characters out of view
 * cost nothing here. Everything per frame works on arrays built in the constructor.
 */
import { BufferAttribute, BufferGeometry, Matrix4, type Object3D, type Skeleton } from 'three';

/** How one bone's skinning matrix is made. */
const POSED = 0; //  rootFrame × [R(W_j) | P_j] × (s_j-scaled inverse bind), j = ref
const COPY = 1; //   the skinning matrix of bone `ref` of the same skeleton (computed earlier in `order`)
const FIXED = 2; //  rootFrame × constant (a bone under the root that the rig does not move)
const WORLD = 3; //  three's own: bone.matrixWorld × boneInverse (a bone outside the root, or none)

/** Relative tolerance for "the inverse bind matrix is the parent's times the inverse bind local". */
const COPY_TOLERANCE = 1e-5;

/** One skeleton's plan: what to compute for each bone, in an order where a copy follows its source. */
export interface SkinningPlan {
  readonly skeleton: Skeleton;
  /** Bone indices in evaluation order. */
  readonly order: Int32Array;
  readonly kind: Uint8Array;
  /** POSED: the rig joint; COPY: the bone copied; otherwise -1. */
  readonly ref: Int32Array;
  /** 12 per bone (affine, column-major 3x4): POSED the scaled inverse bind, FIXED the constant. */
  readonly affine: Float64Array;
}

/** What the plan needs to know of the rig (target-rig.ts and the pairing). */
export interface SkinnedRig {
  readonly objects: readonly Object3D[];
  readonly parents: Int32Array;
  /** Per rig joint: true when the retargeter moves it relative to its parent (paired bones, the hips). */
  readonly moves: (j: number) => boolean;
}

/**
 * The affine maps (12 numbers, column-major 3x4: three columns of the linear part, then the
 * translation) used here. out = a × b, hand-expanded since it runs for every driven bone:
 *   out.linear = a.linear × b.linear      out.t = a.linear × b.t + a.t
 */
export function affineMultiply(out: Float64Array, oo: number, a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  const a0 = a[ao], a1 = a[ao + 1], a2 = a[ao + 2], a3 = a[ao + 3], a4 = a[ao + 4], a5 = a[ao + 5];
  const a6 = a[ao + 6], a7 = a[ao + 7], a8 = a[ao + 8], a9 = a[ao + 9], a10 = a[ao + 10], a11 = a[ao + 11];
  const b0 = b[bo], b1 = b[bo + 1], b2 = b[bo + 2], b3 = b[bo + 3], b4 = b[bo + 4], b5 = b[bo + 5];
  const b6 = b[bo + 6], b7 = b[bo + 7], b8 = b[bo + 8], b9 = b[bo + 9], b10 = b[bo + 10], b11 = b[bo + 11];
  out[oo] = a0 * b0 + a3 * b1 + a6 * b2; out[oo + 1] = a1 * b0 + a4 * b1 + a7 * b2; out[oo + 2] = a2 * b0 + a5 * b1 + a8 * b2;
  out[oo + 3] = a0 * b3 + a3 * b4 + a6 * b5; out[oo + 4] = a1 * b3 + a4 * b4 + a7 * b5; out[oo + 5] = a2 * b3 + a5 * b4 + a8 * b5;
  out[oo + 6] = a0 * b6 + a3 * b7 + a6 * b8; out[oo + 7] = a1 * b6 + a4 * b7 + a7 * b8; out[oo + 8] = a2 * b6 + a5 * b7 + a8 * b8;
  out[oo + 9] = a0 * b9 + a3 * b10 + a6 * b11 + a9; out[oo + 10] = a1 * b9 + a4 * b10 + a7 * b11 + a10; out[oo + 11] = a2 * b9 + a5 * b10 + a8 * b11 + a11;
}

/** The affine part of a three.js Matrix4 (column-major 4x4 elements). */
export function affineFromMatrix4(out: Float64Array, oo: number, m: Matrix4): void {
  const e = m.elements;
  for (let c = 0; c < 4; c++) for (let r = 0; r < 3; r++) out[oo + 3 * c + r] = e[4 * c + r];
}

/** An affine map written as a column-major 4x4 (bottom row 0 0 0 1), as three's bone matrices are. */
function storeAffine(m: Float32Array, mo: number, a: Float64Array, ao: number): void {
  m[mo] = a[ao]; m[mo + 1] = a[ao + 1]; m[mo + 2] = a[ao + 2]; m[mo + 3] = 0;
  m[mo + 4] = a[ao + 3]; m[mo + 5] = a[ao + 4]; m[mo + 6] = a[ao + 5]; m[mo + 7] = 0;
  m[mo + 8] = a[ao + 6]; m[mo + 9] = a[ao + 7]; m[mo + 10] = a[ao + 8]; m[mo + 11] = 0;
  m[mo + 12] = a[ao + 9]; m[mo + 13] = a[ao + 10]; m[mo + 14] = a[ao + 11]; m[mo + 15] = 1;
}

/** Largest absolute difference of two affine maps over the larger of 1 and their largest entry. */
function relativeDifference(a: Float64Array, b: Float64Array): number {
  let d = 0, m = 1;
  for (let k = 0; k < 12; k++) { d = Math.max(d, Math.abs(a[k] - b[k])); m = Math.max(m, Math.abs(a[k]), Math.abs(b[k])); }
  return d / m;
}

/**
 * The plan for one skeleton. `toR` maps the world at construction to the rig frame R (Yaw ×
 * rootScale × inverse(root.matrixWorld)); every object's matrixWorld must be current (bind pose).
 */
export function planSkinning(skeleton: Skeleton, rig: SkinnedRig, root: Object3D, toR: Matrix4): SkinningPlan {
  const bones = skeleton.bones, n = bones.length;
  const kind = new Uint8Array(n), ref = new Int32Array(n).fill(-1), affine = new Float64Array(12 * n);
  const jointOf = new Map(rig.objects.map((o, j) => [o as Object3D, j]));
  const boneIndex = new Map<Object3D, number>();
  bones.forEach((b, i) => { if (b && !boneIndex.has(b)) boneIndex.set(b, i); });
  const underRoot = (o: Object3D): boolean => { for (let p: Object3D | null = o; p; p = p.parent) if (p === root) return true; return false; };
  // Bind transforms in R, and the bind skinning matrices B × boneInverse (what a copy must equal).
  const m = new Matrix4(), bind = new Float64Array(12 * n), scaleOf = new Float64Array(n);
  bones.forEach((b, i) => {
    if (!b) return;
    m.multiplyMatrices(toR, b.matrixWorld);
    scaleOf[i] = Math.hypot(m.elements[0], m.elements[1], m.elements[2]);
    m.multiply(skeleton.boneInverses[i]);
    affineFromMatrix4(bind, 12 * i, m);
  });
  const x = new Float64Array(12), y = new Float64Array(12);
  for (let i = 0; i < n; i++) {
    const b = bones[i], j = b ? jointOf.get(b) : undefined;
    if (!b || !underRoot(b)) { kind[i] = WORLD; continue; }
    if (j === undefined) {
      // Under the root, outside the rig: constant in R. Its skinning matrix is rootFrame × (B × boneInverse).
      kind[i] = FIXED;
      affine.set(bind.subarray(12 * i, 12 * i + 12), 12 * i);
      continue;
    }
    const p = rig.parents[j], k = p >= 0 ? boneIndex.get(rig.objects[p]) : undefined;
    if (!rig.moves(j) && k !== undefined) {
      x.set(bind.subarray(12 * i, 12 * i + 12)); y.set(bind.subarray(12 * k, 12 * k + 12));
      if (relativeDifference(x, y) <= COPY_TOLERANCE) { kind[i] = COPY; ref[i] = k; continue; }
    }
    kind[i] = POSED; ref[i] = j;
    // s_j folded into the inverse bind: [s R | P] × IB = [R | P] × (diag(s, s, s, 1) × IB).
    affineFromMatrix4(affine, 12 * i, skeleton.boneInverses[i]);
    for (let c = 0; c < 4; c++) for (let r = 0; r < 3; r++) affine[12 * i + 3 * c + r] *= scaleOf[i];
  }
  // Order: everything computed from the pose first, then the copies by rig depth (a finger's second
  // bone copies its first, which copies the hand).
  const depth = (i: number): number => { let d = 0; for (let k = i; kind[k] === COPY; k = ref[k]) d++; return d; };
  const order = Int32Array.from([...Array(n).keys()].sort((a, b) => depth(a) - depth(b) || a - b));
  return { skeleton, order, kind, ref, affine };
}

/** The rig joints a plan reads from the pose (its POSED bones). */
export function posedJoints(plan: SkinningPlan): number[] {
  const out: number[] = [];
  for (let i = 0; i < plan.kind.length; i++) if (plan.kind[i] === POSED) out.push(plan.ref[i]);
  return out;
}

/** Whether a plan reads bone objects (WORLD bones: outside the root, or missing): their matrices are world, not relative to the root. */
export function readsBoneObjects(plan: SkinningPlan): boolean {
  for (let n = 0; n < plan.order.length; n++) if (plan.kind[plan.order[n]] === WORLD) return true;
  return false;
}

/** The identity affine map (12 numbers): rootFrame for matrices relative to the character's root frame R. */
export const IDENTITY_AFFINE = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);

/** The plan without its copies: for meshes whose geometry no longer uses the copied bones. */
export function withoutCopies(plan: SkinningPlan): SkinningPlan {
  return { ...plan, order: plan.order.filter((i) => plan.kind[i] !== COPY) };
}

/** Geometries with copy bones merged into their sources, per original geometry and bone mapping (clones share them). */
const MERGED = new WeakMap<BufferGeometry, Map<string, BufferGeometry>>();

/**
 * `g` with every vertex weighted to a copy bone weighted to the bone it copies instead (the same
 * matrix, by the plan's construction), so the copies' matrices need not be written. Every other
 * attribute, the index, groups and morph targets are shared with `g`; only skinIndex is new. Null
 * when skinIndex is not a plain attribute (interleaved, say): then the copies are written.
 */
export function geometryWithoutCopies(g: BufferGeometry, plan: SkinningPlan): BufferGeometry | null {
  const skinIndex = g.getAttribute('skinIndex');
  if (!(skinIndex instanceof BufferAttribute) || skinIndex.itemSize !== 4) return null;
  const n = plan.kind.length, target = Int32Array.from({ length: n }, (_, i) => { let k = i; while (plan.kind[k] === COPY) k = plan.ref[k]; return k; });
  const key = target.join(',');
  let byKey = MERGED.get(g);
  if (!byKey) { byKey = new Map(); MERGED.set(g, byKey); }
  const known = byKey.get(key);
  if (known) return known;
  const src = skinIndex.array, array = src.slice();
  for (let k = 0; k < array.length; k++) { const b = src[k]; if (b < n) array[k] = target[b]; }
  const out = new BufferGeometry();
  out.name = g.name;
  out.setIndex(g.index);
  for (const [name, a] of Object.entries(g.attributes)) out.setAttribute(name, name === 'skinIndex' ? new BufferAttribute(array, 4, skinIndex.normalized) : a);
  out.morphAttributes = g.morphAttributes;
  out.morphTargetsRelative = g.morphTargetsRelative;
  for (const gr of g.groups) out.addGroup(gr.start, gr.count, gr.materialIndex);
  out.setDrawRange(g.drawRange.start, g.drawRange.count);
  out.boundingBox = g.boundingBox;
  out.boundingSphere = g.boundingSphere;
  out.userData = g.userData;
  byKey.set(key, out);
  return out;
}

/**
 * Writes a skeleton's boneMatrices from the pose: rotations W (J*4) and positions P (J*3) in R, and
 * rootFrame (12, affine: R to world). `scratch`: 24 doubles.
 */
export function writeSkinning(plan: SkinningPlan, W: Float64Array, P: Float64Array, rootFrame: Float64Array, scratch: Float64Array, world: Matrix4): void {
  const skeleton = plan.skeleton, out = skeleton.boneMatrices;
  if (out === null) return;
  const order = plan.order, kind = plan.kind, ref = plan.ref, affine = plan.affine;
  const A = rootFrame, T = scratch; // T: 24 doubles of scratch (FIXED bones)
  const relative = A === IDENTITY_AFFINE;
  for (let n = 0; n < order.length; n++) {
    const i = order[n], kd = kind[i];
    if (kd === POSED) {
      const j = ref[i], j4 = 4 * j, j3 = 3 * j;
      const qx = W[j4], qy = W[j4 + 1], qz = W[j4 + 2], qw = W[j4 + 3];
      // R(q), column-major: the usual quaternion-to-matrix formula.
      const r0 = 1 - 2 * (qy * qy + qz * qz), r1 = 2 * (qx * qy + qw * qz), r2 = 2 * (qx * qz - qw * qy);
      const r3 = 2 * (qx * qy - qw * qz), r4 = 1 - 2 * (qx * qx + qz * qz), r5 = 2 * (qy * qz + qw * qx);
      const r6 = 2 * (qx * qz + qw * qy), r7 = 2 * (qy * qz - qw * qx), r8 = 1 - 2 * (qx * qx + qy * qy);
      const px = P[j3], py = P[j3 + 1], pz = P[j3 + 2];
      // T = rootFrame × [R | P]   (affineMultiply written out, with b = [R | P]); [R | P] itself
      // for matrices relative to R (rootFrame the identity: the same numbers, without the products)
      let t0 = r0, t1 = r1, t2 = r2, t3 = r3, t4 = r4, t5 = r5, t6 = r6, t7 = r7, t8 = r8, t9 = px, t10 = py, t11 = pz;
      if (!relative) {
        t0 = A[0] * r0 + A[3] * r1 + A[6] * r2; t1 = A[1] * r0 + A[4] * r1 + A[7] * r2; t2 = A[2] * r0 + A[5] * r1 + A[8] * r2;
        t3 = A[0] * r3 + A[3] * r4 + A[6] * r5; t4 = A[1] * r3 + A[4] * r4 + A[7] * r5; t5 = A[2] * r3 + A[5] * r4 + A[8] * r5;
        t6 = A[0] * r6 + A[3] * r7 + A[6] * r8; t7 = A[1] * r6 + A[4] * r7 + A[7] * r8; t8 = A[2] * r6 + A[5] * r7 + A[8] * r8;
        t9 = A[0] * px + A[3] * py + A[6] * pz + A[9]; t10 = A[1] * px + A[4] * py + A[7] * pz + A[10]; t11 = A[2] * px + A[5] * py + A[8] * pz + A[11];
      }
      // boneMatrices[i] = T × (scaled inverse bind) = affineMultiply(T, B) stored as a 4x4 (storeAffine),
      // column c of B times T, the translation's weight w = 0 for c < 3 and 1 for c = 3:
      //   out[o + 4c + r] = t_r * B[3c] + t_(3+r) * B[3c+1] + t_(6+r) * B[3c+2] + w * t_(9+r),  out[o + 4c + 3] = w
      // written out per column (a loop over c was a loop per bone of every character).
      const b = 12 * i, o = 16 * i;
      let bx = affine[b], by = affine[b + 1], bz = affine[b + 2];
      out[o] = t0 * bx + t3 * by + t6 * bz + 0 * t9;
      out[o + 1] = t1 * bx + t4 * by + t7 * bz + 0 * t10;
      out[o + 2] = t2 * bx + t5 * by + t8 * bz + 0 * t11;
      out[o + 3] = 0;
      bx = affine[b + 3]; by = affine[b + 4]; bz = affine[b + 5];
      out[o + 4] = t0 * bx + t3 * by + t6 * bz + 0 * t9;
      out[o + 5] = t1 * bx + t4 * by + t7 * bz + 0 * t10;
      out[o + 6] = t2 * bx + t5 * by + t8 * bz + 0 * t11;
      out[o + 7] = 0;
      bx = affine[b + 6]; by = affine[b + 7]; bz = affine[b + 8];
      out[o + 8] = t0 * bx + t3 * by + t6 * bz + 0 * t9;
      out[o + 9] = t1 * bx + t4 * by + t7 * bz + 0 * t10;
      out[o + 10] = t2 * bx + t5 * by + t8 * bz + 0 * t11;
      out[o + 11] = 0;
      bx = affine[b + 9]; by = affine[b + 10]; bz = affine[b + 11];
      out[o + 12] = t0 * bx + t3 * by + t6 * bz + t9;
      out[o + 13] = t1 * bx + t4 * by + t7 * bz + t10;
      out[o + 14] = t2 * bx + t5 * by + t8 * bz + t11;
      out[o + 15] = 1;
    } else if (kd === COPY) {
      const d = 16 * i, s = 16 * ref[i];
      for (let k = 0; k < 16; k++) out[d + k] = out[s + k];
    } else if (kd === FIXED) {
      affineMultiply(T, 12, A, 0, affine, 12 * i);
      storeAffine(out, 16 * i, T, 12);
    } else {
      const b = skeleton.bones[i];
      if (b) world.multiplyMatrices(b.matrixWorld, skeleton.boneInverses[i]); else world.copy(skeleton.boneInverses[i]);
      world.toArray(out, 16 * i);
    }
  }
  if (skeleton.boneTexture !== null) skeleton.boneTexture.needsUpdate = true;
}
