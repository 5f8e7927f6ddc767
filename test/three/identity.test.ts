/**
 * Identity: a glTF built from the database's own skeleton (bind pose = identity rotations and the
 * skeleton's offsets) driven through the whole adapter (GLB -> GLTFLoader -> bone finding ->
 * retargeting -> foot IK -> three's bones) must reproduce the engine's world joint positions.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Vector3 } from 'three';
import {  Matcher, MatcherSearchPort, MotionMatchingController, createInput } from '../../src/index.js';
import type { Database } from '../../src/database/database.js';
import { ThreeRetargeter, parseGlb } from '../../src/three/index.js';
import { buildGlb, databaseRig } from './fixtures.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
beforeAll(() => { db = builtinDatabase(); });

describe('three adapter: identity', () => {
  it('a rig built from the database skeleton reproduces the engine joints within 0.1 mm over 300 steps', async () => {
    const gltf = await parseGlb(buildGlb({ bones: databaseRig(db) }));
    const rig = ThreeRetargeter.fromGltf(gltf.scene, db);
    expect(rig.legRatio).toBeCloseTo(1, 12);
    expect(rig.boneMap.find((e) => e.role === 'leftLowerLeg')).toMatchObject({ target: 'calf_l', source: 'calf_l' });
    const matcher = await Matcher.create(db);
    const search = new MatcherSearchPort(matcher, 'kdtree');
    const c = new MotionMatchingController(db);
    const input = createInput();
    const bones = db.skeleton.names.map((n) => { const b = gltf.scene.getObjectByName(n); if (!b) throw new Error(n); return b; });
    const v = new Vector3();
    let worst = 0;
    for (let step = 0; step < 300; step++) {
      const t = step / 60;
      const a = t < 2 ? 0 : 0.8 * (t - 2);
      input.velocityX = 1.4 * Math.sin(a); input.velocityZ = 1.4 * Math.cos(a);
      c.update(1 / 60, input, search);
      rig.apply(c);
      gltf.scene.updateMatrixWorld(true);
      for (let j = 0; j < bones.length; j++) {
        bones[j].getWorldPosition(v);
        const e = Math.hypot(v.x - c.worldPositions[3 * j], v.y - c.worldPositions[3 * j + 1], v.z - c.worldPositions[3 * j + 2]);
        if (e > worst) worst = e;
      }
    }
    console.log(`identity: largest joint error over 300 steps ${(worst * 1000).toFixed(6)} mm`);
    expect(worst).toBeLessThan(1e-4);
  });
});
