/**
 * A test rig (fixtures.ts) with a body you can see: fixtures.buildGlb puts a 2 cm triangle at each
 * bone; this replaces that mesh with a box along every bone (from the bone to each child, weighted
 * fully to the bone), with normals and a material, so that a screenshot of the browser demo shows
 * a figure. The skin, the bones and their bind pose are buildGlb's, unchanged.
 */
import { BoxGeometry, Matrix4, Quaternion, Vector3 } from 'three';
import { buildGlb, packGlb, vec3Bounds, type RigSpec } from './fixtures.js';

/** Reads a GLB's JSON and BIN chunks. */
export function unpackGlb(glb: Uint8Array): { json: Record<string, unknown>; bin: Uint8Array } {
  const dv = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLen = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLen))) as Record<string, unknown>;
  const at = 20 + jsonLen;
  const bin = at + 8 <= glb.byteLength ? glb.subarray(at + 8, at + 8 + dv.getUint32(at, true)) : new Uint8Array(0);
  return { json, bin };
}

/** Limb thickness (m) by bone name. */
function radius(name: string): number {
  const n = name.toLowerCase();
  if (/head/.test(n)) return 0.08;
  if (/spine|pelvis|hips|chest/.test(n)) return 0.1;
  if (/neck/.test(n)) return 0.045;
  if (/up.?leg|thigh/.test(n)) return 0.07;
  if (/leg|calf|shin/.test(n)) return 0.05;
  if (/toe|ball/.test(n)) return 0.035;
  if (/foot/.test(n)) return 0.045;
  if (/index|finger|thumb/.test(n)) return 0.012;
  if (/hand/.test(n)) return 0.035;
  if (/shoulder|clav/.test(n)) return 0.045;
  return 0.04;
}

/** buildGlb(spec) with a visible body (one character: spec.copies must be 1 or absent). */
export function buildBodyGlb(spec: RigSpec): Uint8Array {
  if ((spec.copies ?? 1) !== 1 || spec.noSkin) throw new Error('buildBodyGlb: one skinned character only');
  const { json, bin } = unpackGlb(buildGlb(spec));
  const bones = spec.bones;
  const pos: number[] = [], nor: number[] = [], joints: number[] = [], weights: number[] = [], tris: number[] = [];
  const Y = new Vector3(0, 1, 0);
  const addBox = (bone: number, a: Vector3, b: Vector3, r: number): void => {
    const dir = b.clone().sub(a);
    const len = dir.length();
    if (len < 1e-4) return;
    const box = new BoxGeometry(2 * r, len, 2 * r).translate(0, len / 2, 0);
    const m = new Matrix4().compose(a, new Quaternion().setFromUnitVectors(Y, dir.normalize()), new Vector3(1, 1, 1));
    box.applyMatrix4(m);
    const base = pos.length / 3;
    const P = box.getAttribute('position'), N = box.getAttribute('normal');
    for (let i = 0; i < P.count; i++) {
      pos.push(P.getX(i), P.getY(i), P.getZ(i));
      nor.push(N.getX(i), N.getY(i), N.getZ(i));
      joints.push(bone, 0, 0, 0);
      weights.push(1, 0, 0, 0);
    }
    const I = box.getIndex()!;
    for (let i = 0; i < I.count; i++) tris.push(base + I.getX(i));
  };
  bones.forEach((b, i) => {
    const a = new Vector3(...b.pos);
    const kids = bones.filter((k) => k.parent === b.name);
    const r = radius(b.name);
    if (kids.length === 0) {
      // An end bone: a small cube (a head gets a head).
      addBox(i, a.clone().add(new Vector3(0, -r, 0)), a.clone().add(new Vector3(0, r, 0)), r);
      return;
    }
    // The hips: one box up to the spine only (the legs hang from it).
    const spineKids = kids.length > 2 ? kids.filter((k) => /spine/i.test(k.name)) : kids;
    for (const k of spineKids.length ? spineKids : kids) addBox(i, a, new Vector3(...k.pos), r);
  });
  // Append the new accessors to BIN.
  const views = json.bufferViews as Array<Record<string, unknown>>;
  const accessors = json.accessors as Array<Record<string, unknown>>;
  const parts: Uint8Array[] = [bin];
  let length = bin.byteLength;
  const add = (data: Float32Array | Uint16Array | Uint32Array, type: string, count: number, component: number, minmax = false, target?: number): number => {
    const pad = (4 - (length % 4)) % 4;
    if (pad) { parts.push(new Uint8Array(pad)); length += pad; }
    views.push({ buffer: 0, byteOffset: length, byteLength: data.byteLength, ...(target ? { target } : {}) });
    parts.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    length += data.byteLength;
    const acc: Record<string, unknown> = { bufferView: views.length - 1, componentType: component, count, type };
    if (minmax) Object.assign(acc, vec3Bounds(data, count));
    accessors.push(acc);
    return accessors.length - 1;
  };
  const n = pos.length / 3;
  const P = add(Float32Array.from(pos), 'VEC3', n, 5126, true);
  const N = add(Float32Array.from(nor), 'VEC3', n, 5126);
  const J = add(Uint16Array.from(joints), 'VEC4', n, 5123);
  const W = add(Float32Array.from(weights), 'VEC4', n, 5126);
  const I = add(Uint32Array.from(tris), 'SCALAR', tris.length, 5125);
  json.materials = [{ name: 'Skin', pbrMetallicRoughness: { baseColorFactor: [0.95, 0.62, 0.32, 1], metallicFactor: 0, roughnessFactor: 0.8 } }];
  (json.meshes as Array<Record<string, unknown>>)[0].primitives = [{ attributes: { POSITION: P, NORMAL: N, JOINTS_0: J, WEIGHTS_0: W }, indices: I, material: 0 }];
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.byteLength; }
  (json.buffers as Array<Record<string, unknown>>)[0].byteLength = length;
  return packGlb(JSON.stringify(json), out);
}
