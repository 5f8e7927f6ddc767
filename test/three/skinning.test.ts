/**
 * Output 'matrices' (the crowd path, src/three/skinning.ts) against three's own path: the same
 * character loaded twice and driven by the same controller, once with output 'bones' followed by
 * what three does before drawing (updateMatrixWorld, skeleton.update), once with output 'matrices'
 * (the retargeter's skeleton.update) — the skinning matrices must agree within 1e-5 (every bone
 * the mesh uses; with mergeStillBones false, every bone), and so must the skinned vertices, on every
 * rig fixture, under a moved, turned and scaled parent, and with a skin not bound in the node pose.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Group, Matrix4, Vector3, type Object3D, type SkinnedMesh } from 'three';
import * as SkeletonUtils from 'three/examples/jsm/utils/SkeletonUtils.js';
import {  Matcher, MatcherSearchPort, MotionMatchingController, createInput } from '../../src/index.js';
import type { Database } from '../../src/database/database.js';
import { ThreeRetargeter, parseGlb, type ThreeRetargeterOptions } from '../../src/three/index.js';
import { smallestHeapGrowth } from '../helpers/heap-growth.js';
import { buildGlb, databaseRig, type RigSpec } from './fixtures.js';
import { mixamo65Rig, mixamoRig, unrealRig, vroidRig, vrmRig } from './rigs.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
let search: MatcherSearchPort;
beforeAll(async () => {
  db = builtinDatabase();
  search = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
});

function skinnedMeshes(root: Object3D): SkinnedMesh[] {
  const out: SkinnedMesh[] = [];
  root.traverse((o) => { if ((o as SkinnedMesh).isSkinnedMesh) out.push(o as SkinnedMesh); });
  return out;
}

/** A parent that moves, turns and scales the character (what rootFrame must carry). */
function parentGroup(): Group {
  const g = new Group();
  g.position.set(2, 0.3, -1);
  g.rotation.set(0.1, 0.7, 0);
  g.scale.setScalar(1.3);
  return g;
}

/** The bones a mesh's vertices are weighted to. */
function usedBones(m: SkinnedMesh): Set<number> {
  const idx = m.geometry.getAttribute('skinIndex'), w = m.geometry.getAttribute('skinWeight'), used = new Set<number>();
  for (let v = 0; v < idx.count; v++) for (let k = 0; k < 4; k++) if (w.getComponent(v, k) > 0) used.add(idx.getComponent(v, k));
  return used;
}

/**
 * Vertex v skinned as three's shader does it: matrixWorld × bindMatrixInverse × sum of w × boneMatrix
 * × bindMatrix × position, in the world (in attached bind mode, three's own, the first two cancel).
 */
function skinnedVertex(m: SkinnedMesh, v: number, out: Vector3, tmp: Vector3, bone: Matrix4): Vector3 {
  const idx = m.geometry.getAttribute('skinIndex'), w = m.geometry.getAttribute('skinWeight'), pos = m.geometry.getAttribute('position');
  out.set(0, 0, 0);
  for (let k = 0; k < 4; k++) {
    const weight = w.getComponent(v, k);
    if (weight === 0) continue;
    bone.fromArray(m.skeleton.boneMatrices!, 16 * idx.getComponent(v, k));
    tmp.fromBufferAttribute(pos, v).applyMatrix4(m.bindMatrix).applyMatrix4(bone);
    out.addScaledVector(tmp, weight);
  }
  return out.applyMatrix4(m.bindMatrixInverse).applyMatrix4(m.matrixWorld);
}

/** Bone i's matrix as it acts in the world: matrixWorld × bindMatrixInverse × boneMatrices[i]. */
function effectiveBoneMatrix(m: SkinnedMesh, i: number, out: Matrix4, tmp: Matrix4): Matrix4 {
  return out.multiplyMatrices(m.matrixWorld, m.bindMatrixInverse).multiply(tmp.fromArray(m.skeleton.boneMatrices!, 16 * i));
}

interface Run { worst: number; worstVertex: number; copied: number; bones: number; written: number }

/**
 * How the parent moves: not at all, or every step before apply(), its world matrix updated then or
 * only after apply() (by the scene's updateMatrixWorld, as a renderer does).
 */
type ParentMotion = 'still' | 'updated-before-apply' | 'updated-after-apply';

/** Drives `spec` both ways for `steps` steps; the worst skinning-matrix and skinned-vertex differences. */
async function compare(spec: RigSpec, steps: number, pose?: (scene: Object3D) => void, options: ThreeRetargeterOptions = {}, motion: ParentMotion = 'still'): Promise<Run> {
  const bytes = buildGlb(spec);
  const a = await parseGlb(bytes), b = await parseGlb(bytes);
  for (const g of [a, b]) { pose?.(g.scene); parentGroup().add(g.scene); }
  const ra = ThreeRetargeter.fromGltf(a.scene, db);
  const rb = ThreeRetargeter.fromGltf(b.scene, db, { ...options, output: 'matrices' });
  const ma = skinnedMeshes(a.scene), mb = skinnedMeshes(b.scene);
  const used = mb.map(usedBones);
  const va = new Vector3(), vb = new Vector3(), tmp = new Vector3(), bone = new Matrix4(), ea = new Matrix4(), eb = new Matrix4();
  let worstVertex = 0;
  const c = new MotionMatchingController(db);
  const input = createInput();
  let worst = 0;
  for (let step = 0; step < steps; step++) {
    const t = step / 60, heading = t < 1.5 ? 0 : 1.2 * (t - 1.5);
    input.velocityX = 1.6 * Math.sin(heading); input.velocityZ = 1.6 * Math.cos(heading);
    c.update(1 / 60, input, search);
    if (motion !== 'still') {
      for (const g of [a, b]) {
        const p = g.scene.parent!;
        p.position.x += 0.01; p.rotation.y += 0.003; p.scale.setScalar(1.3 + 0.1 * Math.sin(step / 20));
        if (motion === 'updated-before-apply') p.updateMatrixWorld(true);
      }
    }
    ra.apply(c); rb.apply(c);
    a.scene.parent!.updateMatrixWorld(true); b.scene.parent!.updateMatrixWorld(true);
    for (let m = 0; m < ma.length; m++) {
      ma[m].skeleton.update(); mb[m].skeleton.update();
      for (const i of used[m]) {
        const x = effectiveBoneMatrix(ma[m], i, ea, bone).elements, y = effectiveBoneMatrix(mb[m], i, eb, bone).elements;
        for (let k = 0; k < 16; k++) worst = Math.max(worst, Math.abs(x[k] - y[k]));
      }
      const count = ma[m].geometry.getAttribute('position').count;
      for (let v = 0; v < count; v++) worstVertex = Math.max(worstVertex, skinnedVertex(ma[m], v, va, tmp, bone).distanceTo(skinnedVertex(mb[m], v, vb, tmp, bone)));
    }
  }
  const plans = (rb as unknown as { plans: Array<{ kind: Uint8Array; order: Int32Array }> }).plans;
  return {
    worst, worstVertex, copied: plans.reduce((n, p) => n + p.kind.filter((k) => k === 1).length, 0), bones: mb[0].skeleton.bones.length,
    written: plans.reduce((n, p) => n + p.order.length, 0),
  };
}

describe("three adapter: output 'matrices' equals three's own skinning", () => {
  const cases: Array<[string, (db: Database) => RigSpec]> = [
    ['identity (the database skeleton)', (d) => ({ bones: databaseRig(d) })],
    ['Mixamo, cm under a 0.01 armature, fingers and end bones', (d) => ({ bones: mixamoRig(databaseRig(d)), armatureScale: 0.01 })],
    ['Unreal, A-pose, rolled axes, twist bones, a root bone above the pelvis', (d) => ({ bones: unrealRig(databaseRig(d)) })],
    ['VRM, no toes, facing -Z', (d) => ({ bones: vrmRig(databaseRig(d)) })],
    ['Mixamo as shipped: 65 bones, four per finger', (d) => ({ bones: mixamo65Rig(databaseRig(d)), armatureScale: 0.01 })],
    ['VRoid: J_Bip_ bones, three per finger, J_Sec_ hair and skirt chains', (d) => ({ bones: vroidRig(databaseRig(d)) })],
  ];
  for (const [name, spec] of cases) {
    it(`${name}: within 1e-5 over 240 steps`, async () => {
      const r = await compare(spec(db), 240);
      console.log(`${name}: ${r.bones} bones, ${r.copied} following their parent, ${r.written} written; largest difference ${r.worst.toExponential(2)} (matrices), ${r.worstVertex.toExponential(2)} m (vertices)`);
      expect(r.worst).toBeLessThan(1e-5);
      expect(r.worstVertex).toBeLessThan(1e-5);
    });
  }

  it('under a parent moving every step (its world matrix updated before apply() or only after it): within 1e-5', async () => {
    for (const motion of ['updated-before-apply', 'updated-after-apply'] as const) {
      const r = await compare({ bones: mixamo65Rig(databaseRig(db)), armatureScale: 0.01 }, 120, undefined, {}, motion);
      console.log(`parent moving, ${motion}: largest difference ${r.worst.toExponential(2)} (matrices), ${r.worstVertex.toExponential(2)} m (vertices)`);
      expect(r.worst).toBeLessThan(1e-5);
      expect(r.worstVertex).toBeLessThan(1e-5);
    }
  });

  for (const [name, spec] of cases) {
    it(`rootRelativeSkinning, ${name}: drawn within 1e-5 over 120 steps, the parent still or moving`, async () => {
      for (const motion of ['still', 'updated-after-apply'] as const) {
        const r = await compare(spec(db), 120, undefined, { rootRelativeSkinning: true }, motion);
        console.log(`rootRelativeSkinning, ${name}, parent ${motion}: largest difference ${r.worst.toExponential(2)} (matrices as they act), ${r.worstVertex.toExponential(2)} m (vertices)`);
        expect(r.worst).toBeLessThan(1e-5);
        expect(r.worstVertex).toBeLessThan(1e-5);
      }
    });
  }

  it('rootRelativeSkinning: held poses write nothing, getVertexPosition stays right, dispose() gives three its bindMatrixInverse back', async () => {
    const bytes = buildGlb({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 });
    const a = await parseGlb(bytes), b = await parseGlb(bytes);
    for (const g of [a, b]) parentGroup().add(g.scene);
    const ra = ThreeRetargeter.fromGltf(a.scene, db, { output: 'matrices' });
    const rb = ThreeRetargeter.fromGltf(b.scene, db, { output: 'matrices', rootRelativeSkinning: true });
    const ma = skinnedMeshes(a.scene)[0], mb = skinnedMeshes(b.scene)[0];
    const c = new MotionMatchingController(db);
    const input = createInput();
    input.velocityZ = 1.4;
    for (let i = 0; i < 30; i++) { c.update(1 / 60, input, search); ra.apply(c); rb.apply(c); b.scene.parent!.updateMatrixWorld(true); mb.skeleton.update(); }
    // A held pose (unseen): the matrices are not written again, and still draw the character where it now stands.
    c.unseen = true;
    c.update(1 / 60, input, search);
    rb.apply(c);
    b.scene.parent!.updateMatrixWorld(true);
    const before = mb.skeleton.boneMatrices!.slice();
    mb.skeleton.boneMatrices!.fill(7);
    mb.skeleton.update();
    expect(mb.skeleton.boneMatrices![0]).toBe(7);
    mb.skeleton.boneMatrices!.set(before);
    c.unseen = false;
    // getVertexPosition (raycasts, bounding volumes) after updateBoneObjects(): as three's own.
    c.update(1 / 60, input, search);
    ra.apply(c); rb.apply(c);
    a.scene.parent!.updateMatrixWorld(true); b.scene.parent!.updateMatrixWorld(true);
    ra.updateBoneObjects(); rb.updateBoneObjects();
    const pa = new Vector3(), pb = new Vector3();
    let worst = 0;
    for (let v = 0; v < ma.geometry.getAttribute('position').count; v += 7) {
      ma.getVertexPosition(v, pa).applyMatrix4(ma.matrixWorld); mb.getVertexPosition(v, pb).applyMatrix4(mb.matrixWorld);
      worst = Math.max(worst, pa.distanceTo(pb));
    }
    expect(worst).toBeLessThan(1e-6);
    rb.dispose();
    expect(Object.prototype.hasOwnProperty.call(mb, 'updateMatrixWorld')).toBe(false);
    expect(Object.prototype.hasOwnProperty.call(mb, 'applyBoneTransform')).toBe(false);
    const product = new Matrix4().multiplyMatrices(mb.matrixWorld, mb.bindMatrixInverse).elements;
    new Matrix4().identity().elements.forEach((e, k) => expect(product[k]).toBeCloseTo(e, 9));
  });

  it('with mergeStillBones false, every matrix (the copies too) within 1e-5, and the meshes keep their geometry', async () => {
    const r = await compare({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 }, 120, undefined, { mergeStillBones: false });
    expect(r.written).toBe(r.bones);
    expect(r.worst).toBeLessThan(1e-5);
    expect(r.worstVertex).toBeLessThan(1e-5);
  });

  it('merged geometries share every attribute but skinIndex, one for all clones; dispose() gives the meshes their own back', async () => {
    const gltf = await parseGlb(buildGlb({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 }));
    const own = skinnedMeshes(gltf.scene)[0].geometry;
    const clones = [SkeletonUtils.clone(gltf.scene), SkeletonUtils.clone(gltf.scene)];
    const rigs = clones.map((c) => ThreeRetargeter.fromGltf(c, db, { output: 'matrices' }));
    const [g0, g1] = clones.map((c) => skinnedMeshes(c)[0].geometry);
    expect(g0).toBe(g1);
    expect(g0).not.toBe(own);
    expect(g0.getAttribute('position')).toBe(own.getAttribute('position'));
    expect(g0.getAttribute('skinWeight')).toBe(own.getAttribute('skinWeight'));
    expect(g0.getAttribute('skinIndex')).not.toBe(own.getAttribute('skinIndex'));
    rigs[0].dispose();
    expect(skinnedMeshes(clones[0])[0].geometry).toBe(own);
  });

  it('bones that keep their bind pose are copies of their parent, unless the skin was bound in another pose', async () => {
    const spec = { bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 };
    const plain = await compare(spec, 2);
    expect(plain.copied).toBe(6); // three finger bones, the head's and the toes' end bones
    // The left index finger bent after loading: its node pose is no longer the pose the skin was bound in.
    const bent = await compare(spec, 120, (scene) => { scene.getObjectByName('mixamorigLeftHandIndex1')!.rotation.z += 0.6; });
    // The bent bone is computed from the pose; the bone below it still copies it.
    expect(bent.copied).toBe(5);
    expect(bent.worst).toBeLessThan(1e-5);
    expect(bent.worstVertex).toBeLessThan(1e-5);
  });

  it('updateBoneObjects() gives the bones and what hangs on them the pose; dispose() gives them back to three', async () => {
    const bytes = buildGlb({ bones: unrealRig(databaseRig(db)) });
    const a = await parseGlb(bytes), b = await parseGlb(bytes);
    const ra = ThreeRetargeter.fromGltf(a.scene, db), rb = ThreeRetargeter.fromGltf(b.scene, db, { output: 'matrices', keepBonesInScene: true });
    const swords = [a, b].map((g) => { const s = new Group(); s.position.set(0.1, 0, 0); g.scene.getObjectByName('hand_r')!.add(s); return s; });
    const c = new MotionMatchingController(db);
    const input = createInput();
    input.velocityZ = 1.4;
    for (let i = 0; i < 60; i++) { c.update(1 / 60, input, search); ra.apply(c); rb.apply(c); }
    a.scene.updateMatrixWorld(true);
    rb.updateBoneObjects();
    const pa = new Vector3(), pb = new Vector3();
    for (const name of ['foot_l', 'hand_r', 'index_01_l', 'upperarm_twist_01_l']) {
      a.scene.getObjectByName(name)!.getWorldPosition(pa); b.scene.getObjectByName(name)!.getWorldPosition(pb);
      expect(pa.distanceTo(pb)).toBeLessThan(1e-9);
    }
    swords[0].getWorldPosition(pa); swords[1].getWorldPosition(pb);
    expect(pa.distanceTo(pb)).toBeLessThan(1e-9);
    // The renderer's update does not undo it.
    b.scene.updateMatrixWorld();
    swords[1].getWorldPosition(pb);
    expect(pa.distanceTo(pb)).toBeLessThan(1e-9);
    rb.dispose();
    const sk = skinnedMeshes(b.scene)[0].skeleton;
    expect(Object.prototype.hasOwnProperty.call(sk, 'update')).toBe(false);
    expect(b.scene.getObjectByName('pelvis')!.matrixAutoUpdate).toBe(true);
  });

  it('a character placed far from where it was made is not culled: its bounding sphere is the bind pose, moving with it', async () => {
    const gltf = await parseGlb(buildGlb({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 }));
    const r = ThreeRetargeter.fromGltf(gltf.scene, db, { output: 'matrices' });
    const mesh = skinnedMeshes(gltf.scene)[0];
    const c = new MotionMatchingController(db);
    c.reset(c.frame, 50, 30, 0);
    c.update(1 / 60, createInput(), search);
    r.apply(c);
    gltf.scene.updateMatrixWorld();
    const sphere = mesh.boundingSphere!.clone().applyMatrix4(mesh.matrixWorld);
    expect(sphere.center.distanceTo(new Vector3(r.position[0], 1, r.position[2]))).toBeLessThan(0.5);
    expect(sphere.radius).toBeGreaterThan(0.8);
  });

  it('one skeleton cannot be written by two retargeters; clones each get their own', async () => {
    const gltf = await parseGlb(buildGlb({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 }));
    const clone = SkeletonUtils.clone(gltf.scene);
    ThreeRetargeter.fromGltf(gltf.scene, db, { output: 'matrices' });
    expect(() => ThreeRetargeter.fromGltf(gltf.scene, db, { output: 'matrices' })).toThrow(/already written by another ThreeRetargeter/);
    expect(() => ThreeRetargeter.fromGltf(clone, db, { output: 'matrices' })).not.toThrow();
  });

  for (const extra of [{}, { rootRelativeSkinning: true }]) it(`apply() and skeleton.update() allocate nothing${extra.rootRelativeSkinning ? ' (rootRelativeSkinning)' : ''}: 1,000 of each grow the heap by less than 64 KB`, async () => {
    const gltf = await parseGlb(buildGlb({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 }));
    const r = ThreeRetargeter.fromGltf(gltf.scene, db, { ...extra, output: 'matrices' });
    const sk = skinnedMeshes(gltf.scene)[0].skeleton;
    const c = new MotionMatchingController(db);
    const input = createInput();
    input.velocityZ = 1.4;
    for (let i = 0; i < 200; i++) { c.update(1 / 60, input, search); r.apply(c); sk.update(); }
    for (let i = 0; i < 3000; i++) { r.apply(c); gltf.scene.updateMatrixWorld(); sk.update(); }
    const growth = smallestHeapGrowth(() => { for (let i = 0; i < 1000; i++) { r.apply(c); gltf.scene.updateMatrixWorld(); sk.update(); } });
    console.log(`heap growth over 1,000 apply() + skeleton.update() calls (output 'matrices'): ${growth} bytes`);
    expect(growth).toBeLessThan(64 * 1024);
  });
});
