/**
 * Test rigs as GLB files, written by hand (a GLB is a 12-byte header, a JSON chunk and a BIN
 * chunk) and loaded back with three's GLTFLoader, so that the adapter sees what a developer's file
 * gives it: bones with their own bind rotations, armature scale, a skin with inverse bind matrices.
 *
 * A rig is described by its bones' bind world positions (metres, character frame) and, optionally,
 * bind world rotations (the bones' own axes); the local transforms are derived.
 */
import { Matrix4, Object3D, Quaternion, Vector3 } from 'three';
import type { Database } from '../../src/database/database.js';

export interface RigBone {
  name: string;
  parent: string | null;
  /** Bind world position (m, character frame). */
  pos: [number, number, number];
  /** Bind world rotation (default identity). */
  rot?: [number, number, number, number];
}

export interface RigSpec {
  bones: RigBone[];
  /** Armature node scale (0.01: bones in centimetres). */
  armatureScale?: number;
  /** Armature node rotation (bones compensate). */
  armatureRotation?: [number, number, number, number];
  /** Extra skinned characters (each a full copy of the bones, renamed with a suffix). */
  copies?: number;
  /** No skin at all (a plain mesh). */
  noSkin?: boolean;
}

/** The database skeleton's rest pose as rig bones (identity rotations): the identity fixture. */
export function databaseRig(db: Database): RigBone[] {
  const s = db.skeleton, J = s.names.length, pos: [number, number, number][] = [];
  for (let j = 0; j < J; j++) {
    const p = s.parents[j], o = s.offsets;
    const base = p >= 0 ? pos[p] : [0, 0, 0];
    pos.push([base[0] + o[3 * j], base[1] + o[3 * j + 1], base[2] + o[3 * j + 2]]);
  }
  return s.names.map((name, j) => ({ name, parent: s.parents[j] >= 0 ? s.names[s.parents[j]] : null, pos: pos[j] }));
}

/** Builds the GLB bytes for a rig spec. */
export function buildGlb(spec: RigSpec): Uint8Array {
  const copies = spec.copies ?? 1;
  const nodes: Record<string, unknown>[] = [];
  const accessors: Record<string, unknown>[] = [];
  const views: Record<string, unknown>[] = [];
  const chunks: Uint8Array[] = [];
  let binLength = 0;
  const addView = (data: Uint8Array): number => {
    const pad = (4 - (binLength % 4)) % 4;
    if (pad) { chunks.push(new Uint8Array(pad)); binLength += pad; }
    views.push({ buffer: 0, byteOffset: binLength, byteLength: data.byteLength });
    chunks.push(data); binLength += data.byteLength;
    return views.length - 1;
  };
  const addAccessor = (data: Float32Array | Uint16Array, type: string, count: number, minmax = false): number => {
    const view = addView(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const acc: Record<string, unknown> = { bufferView: view, componentType: data instanceof Float32Array ? 5126 : 5123, count, type };
    if (minmax) Object.assign(acc, vec3Bounds(data, count));
    accessors.push(acc);
    return accessors.length - 1;
  };
  const sceneNodes: number[] = [];
  const meshes: Record<string, unknown>[] = [];
  const skins: Record<string, unknown>[] = [];
  for (let c = 0; c < copies; c++) {
    const suffix = c === 0 ? '' : `.${String(c).padStart(3, '0')}`;
    // three objects for the transforms.
    const armature = new Object3D();
    const s = spec.armatureScale ?? 1;
    armature.scale.setScalar(s);
    if (spec.armatureRotation) armature.quaternion.fromArray(spec.armatureRotation);
    armature.updateMatrixWorld(true);
    const objs = new Map<string, Object3D>();
    const worldRot = new Map<string, Quaternion>();
    for (const b of spec.bones) {
      const o = new Object3D();
      o.name = b.name + suffix;
      const parent = b.parent === null ? armature : objs.get(b.parent);
      if (!parent) throw new Error(`fixture: parent ${b.parent} of ${b.name} not listed before it`);
      // Local = inverse(parent world) * world, scale 1 on every bone.
      const qw = new Quaternion(...(b.rot ?? [0, 0, 0, 1]));
      const pw = new Matrix4().copy(parent.matrixWorld).invert();
      const local = new Matrix4().multiplyMatrices(pw, new Matrix4().compose(new Vector3(...b.pos), qw, new Vector3(s, s, s)));
      local.decompose(o.position, o.quaternion, o.scale);
      o.scale.set(1, 1, 1);
      parent.add(o);
      o.updateMatrixWorld(true);
      objs.set(b.name, o);
      worldRot.set(b.name, qw);
    }
    const base = nodes.length;
    const index = new Map(spec.bones.map((b, i) => [b.name, base + 2 + i]));
    const charNode = nodes.length;
    nodes.push({ name: `Character${suffix}`, children: [] as number[] });
    nodes.push({ name: `Armature${suffix}`, scale: [s, s, s], ...(spec.armatureRotation ? { rotation: spec.armatureRotation } : {}), children: spec.bones.filter((b) => b.parent === null).map((b) => index.get(b.name)) });
    for (const b of spec.bones) {
      const o = objs.get(b.name)!;
      const kids = spec.bones.filter((k) => k.parent === b.name).map((k) => index.get(k.name));
      nodes.push({ name: o.name, translation: o.position.toArray(), rotation: o.quaternion.toArray(), ...(kids.length ? { children: kids } : {}) });
    }
    // A mesh: one small triangle at every bone, weighted fully to it.
    const J = spec.bones.length;
    const P = new Float32Array(9 * J), JI = new Uint16Array(12 * J), WT = new Float32Array(12 * J);
    const ibm = new Float32Array(16 * J);
    spec.bones.forEach((b, j) => {
      const o = objs.get(b.name)!;
      const wp = new Vector3().setFromMatrixPosition(o.matrixWorld);
      const tri = [[0, 0, 0], [0.02, 0, 0], [0, 0.02, 0]];
      tri.forEach((t, k) => { for (let d = 0; d < 3; d++) P[9 * j + 3 * k + d] = wp.getComponent(d) + t[d]; JI[12 * j + 4 * k] = j; WT[12 * j + 4 * k] = 1; });
      ibm.set(new Matrix4().copy(o.matrixWorld).invert().elements, 16 * j);
    });
    const pos = addAccessor(P, 'VEC3', 3 * J, true);
    const joints = addAccessor(JI, 'VEC4', 3 * J);
    const weights = addAccessor(WT, 'VEC4', 3 * J);
    meshes.push({ name: `Body${suffix}`, primitives: [{ attributes: spec.noSkin ? { POSITION: pos } : { POSITION: pos, JOINTS_0: joints, WEIGHTS_0: weights } }] });
    const meshNode = nodes.length;
    if (spec.noSkin) {
      nodes.push({ name: `Body${suffix}`, mesh: meshes.length - 1 });
    } else {
      const ibmAcc = addAccessor(ibm, 'MAT4', J);
      skins.push({ joints: spec.bones.map((b) => index.get(b.name)), inverseBindMatrices: ibmAcc });
      nodes.push({ name: `Body${suffix}`, mesh: meshes.length - 1, skin: skins.length - 1 });
    }
    (nodes[charNode].children as number[]).push(charNode + 1, meshNode);
    sceneNodes.push(charNode);
  }
  const json: Record<string, unknown> = {
    asset: { version: '2.0', generator: 'motionmatch test fixture' }, scene: 0, scenes: [{ nodes: sceneNodes }],
    nodes, meshes, accessors, bufferViews: views, buffers: [{ byteLength: binLength }],
  };
  if (skins.length) json.skins = skins;
  return packGlb(JSON.stringify(json), concat(chunks, binLength));
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.byteLength; }
  return out;
}

/** GLB container: header, JSON chunk (space-padded), BIN chunk (zero-padded). */
export function packGlb(jsonText: string, binData: Uint8Array): Uint8Array {
  const jsonBytes = new TextEncoder().encode(jsonText);
  const jsonLen = Math.ceil(jsonBytes.byteLength / 4) * 4, binLen = Math.ceil(binData.byteLength / 4) * 4;
  const total = 12 + 8 + jsonLen + (binLen > 0 ? 8 + binLen : 0);
  const out = new Uint8Array(total), dv = new DataView(out.buffer);
  dv.setUint32(0, 0x46546c67, true); dv.setUint32(4, 2, true); dv.setUint32(8, total, true);
  dv.setUint32(12, jsonLen, true); dv.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jsonLen); out.set(jsonBytes, 20);
  if (binLen > 0) {
    const at = 20 + jsonLen;
    dv.setUint32(at, binLen, true); dv.setUint32(at + 4, 0x004e4942, true);
    out.set(binData, at + 8);
  }
  return out;
}

/** The min and max of `count` 3-vectors (a glTF POSITION accessor must carry them). */
export function vec3Bounds(data: ArrayLike<number>, count: number): { min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < count; i++) for (let d = 0; d < 3; d++) { min[d] = Math.min(min[d], data[3 * i + d]); max[d] = Math.max(max[d], data[3 * i + d]); }
  return { min, max };
}
