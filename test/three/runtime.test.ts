/**
 * The adapter at run time: no allocation per step, clones (SkeletonUtils.clone) driven
 * independently while sharing geometry, uneven ground, overlays.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Vector3, type Object3D, type SkinnedMesh } from 'three';
import * as SkeletonUtils from 'three/examples/jsm/utils/SkeletonUtils.js';
import {
    Matcher, MatcherSearchPort, MotionMatchingController, createInput, groundFromFunctions, synthesizedWave } from '../../src/index.js';
import type { Database } from '../../src/database/database.js';
import { ThreeRetargeter, parseGlb } from '../../src/three/index.js';
import { smallestHeapGrowth } from '../helpers/heap-growth.js';
import { buildGlb, databaseRig } from './fixtures.js';
import { mixamoRig, unrealRig } from './rigs.js';
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

describe('three adapter at run time', () => {
  it('apply() allocates nothing: 1,000 calls grow the heap by less than 64 KB', async () => {
    const gltf = await parseGlb(buildGlb({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 }));
    const r = ThreeRetargeter.fromGltf(gltf.scene, db);
    const c = new MotionMatchingController(db);
    const input = createInput();
    input.velocityZ = 1.4;
    for (let i = 0; i < 200; i++) { c.update(1 / 60, input, search); r.apply(c); }
    // Warm up apply() itself until V8 has optimised it (unoptimised code boxes doubles in calls).
    for (let i = 0; i < 3000; i++) r.apply(c);
    const growth = smallestHeapGrowth(() => { for (let i = 0; i < 1000; i++) r.apply(c); });
    console.log(`heap growth over 1,000 apply() calls: ${growth} bytes`);
    expect(growth).toBeLessThan(64 * 1024);
  });

  it("an unseen character (levels of detail) is only placed; once seen again its pose is exactly what it would have been", async () => {
    const bytes = buildGlb({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 });
    for (const options of [{}, { output: 'matrices' as const }]) {
      const a = await parseGlb(bytes), b = await parseGlb(bytes);
      const ra = ThreeRetargeter.fromGltf(a.scene, db, options), rb = ThreeRetargeter.fromGltf(b.scene, db, options);
      const c = new MotionMatchingController(db);
      // rb sees the same controller with `unseen` hidden: it poses the character every step.
      const seen = {
        get db() { return c.db; }, get rootPosition() { return c.rootPosition; }, get rootRotation() { return c.rootRotation; },
        get worldPositions() { return c.worldPositions; }, get worldRotations() { return c.worldRotations; }, get options() { return c.options; },
      };
      const input = createInput();
      input.velocityZ = 1.4;
      for (let i = 0; i < 120; i++) {
        c.unseen = i >= 40 && i < 80;
        c.update(1 / 60, input, search);
        const held = ra.rotations.slice();
        ra.apply(c); rb.apply(seen);
        // The placement follows either way.
        expect(Array.from(ra.position)).toEqual(Array.from(rb.position));
        expect(a.scene.quaternion.toArray()).toEqual(b.scene.quaternion.toArray());
        if (c.unseen) expect(ra.rotations).toEqual(held);
        else { expect(ra.rotations).toEqual(rb.rotations); expect(ra.positions).toEqual(rb.positions); }
      }
      // Drawn after all while unseen: skeleton.update() writes the held pose under the new placement.
      if (options.output === 'matrices') {
        const sk = skinnedMeshes(a.scene)[0].skeleton;
        c.unseen = true; c.update(1 / 60, input, search); ra.apply(c);
        a.scene.updateMatrixWorld(); sk.update();
        const hips = sk.bones.indexOf(ra.rig.objects[0] as never), m = sk.boneMatrices!;
        expect(Math.hypot(m[16 * hips + 12] - ra.position[0], m[16 * hips + 14] - ra.position[2])).toBeLessThan(0.5);
      }
    }
  });

  it('holdPose: in steps where a level of detail holds the pose, the character is only placed; in the others posed exactly as without it', async () => {
    const bytes = buildGlb({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 });
    for (const output of ['bones', 'matrices'] as const) {
      const a = await parseGlb(bytes), b = await parseGlb(bytes);
      const ra = ThreeRetargeter.fromGltf(a.scene, db, { output, holdPose: true }), rb = ThreeRetargeter.fromGltf(b.scene, db, { output });
      const c = new MotionMatchingController(db);
      c.setLevel(c.options, { fullSearchInterval: 0, localSeconds: 0, poseEvery: 4 });
      const input = createInput();
      input.velocityZ = 1.4;
      let held = 0;
      for (let i = 0; i < 60; i++) {
        c.update(1 / 60, input, search);
        const before = ra.rotations.slice();
        ra.apply(c); rb.apply(c);
        expect(Array.from(ra.position)).toEqual(Array.from(rb.position));
        if (c.poseSeconds === 0 && i > 0) { held++; expect(ra.rotations).toEqual(before); expect(ra.positions).not.toEqual(rb.positions); }
        else { expect(ra.rotations).toEqual(rb.rotations); expect(ra.positions).toEqual(rb.positions); }
      }
      expect(held).toBeGreaterThanOrEqual(40);
    }
  });

  it('clones share geometry and are driven independently', async () => {
    const gltf = await parseGlb(buildGlb({ bones: unrealRig(databaseRig(db)) }));
    const clone = SkeletonUtils.clone(gltf.scene);
    const meshOf = (o: typeof clone): SkinnedMesh => { let m: SkinnedMesh | null = null; o.traverse((x) => { if ((x as SkinnedMesh).isSkinnedMesh) m = x as SkinnedMesh; }); return m!; };
    expect(meshOf(clone).geometry).toBe(meshOf(gltf.scene).geometry);
    const a = ThreeRetargeter.fromGltf(gltf.scene, db), b = ThreeRetargeter.fromGltf(clone, db);
    const ca = new MotionMatchingController(db), cb = new MotionMatchingController(db);
    cb.reset(cb.frame, 3, 0, Math.PI / 2);
    const input = createInput();
    input.velocityZ = 1.2;
    for (let i = 0; i < 120; i++) { ca.update(1 / 60, input, search); cb.update(1 / 60, input, search); a.apply(ca); b.apply(cb); }
    expect(gltf.scene.position.x).not.toBeCloseTo(clone.position.x, 1);
    expect(a.rig.objects[0]).not.toBe(b.rig.objects[0]);
  });

  it('on uneven ground the feet stand on it, and overlays come through', async () => {
    const slope = 0.15;
    const ground = groundFromFunctions({ height: (x, z) => slope * z + 0.05 * Math.sin(x) });
    const gltf = await parseGlb(buildGlb({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 }));
    const r = ThreeRetargeter.fromGltf(gltf.scene, db);
    const c = new MotionMatchingController(db, { ground });
    const input = createInput();
    input.velocityZ = 1.3;
    const v = new Vector3();
    const roles = r.rig.bones.roles;
    const toes = [roles.leftToes, roles.rightToes].map((j) => r.rig.objects[j]);
    let worstBelow = 0, plantedGap = Infinity;
    for (let i = 0; i < 300; i++) {
      c.update(1 / 60, input, search);
      r.apply(c);
      gltf.scene.updateMatrixWorld(true);
      let low = Infinity;
      for (const t of toes) { t.getWorldPosition(v); const h = v.y - (slope * v.z + 0.05 * Math.sin(v.x)); low = Math.min(low, h); worstBelow = Math.min(worstBelow, h); }
      if (i > 60) plantedGap = Math.min(plantedGap, low);
    }
    console.log(`ground: lowest toe ${(worstBelow * 1000).toFixed(1)} mm over the ground, closest ${(plantedGap * 1000).toFixed(1)} mm`);
    expect(worstBelow).toBeGreaterThan(-0.005);
    expect(plantedGap).toBeLessThan(0.04);
    // An overlay (a wave on the upper body) shows on the character's arm.
    const wave = synthesizedWave(db);
    c.playOverlay(wave.clip);
    const hand = r.rig.objects[roles.rightHand];
    const heights: number[] = [];
    for (let i = 0; i < 90; i++) { c.update(1 / 60, input, search); r.apply(c); gltf.scene.updateMatrixWorld(true); hand.getWorldPosition(v); heights.push(v.y - r.position[1]); }
    expect(Math.max(...heights) - Math.min(...heights)).toBeGreaterThan(0.1);
  });
});
