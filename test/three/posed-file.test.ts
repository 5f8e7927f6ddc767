/**
 * A file saved while posed: its node transforms are not the pose its skin was bound in. The bind
 * pose comes from the inverse bind matrices (target-rig.ts bindWorldMatrices), so the character
 * moves as the same file saved in its bind pose does; bones nothing drives keep the pose they were
 * saved in. Taken from the node transforms, the saved pose was retargeted onto as if it were the
 * rest: a character saved with bent knees and raised arms walked with its limbs off by that pose.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Quaternion, Vector3, type Object3D } from 'three';
import {  Matcher, MatcherSearchPort, MotionMatchingController, createInput } from '../../src/index.js';
import type { Database } from '../../src/database/database.js';
import { ThreeRetargeter, parseGlb } from '../../src/three/index.js';
import { buildGlb, databaseRig } from './fixtures.js';
import { mixamoRig, unrealRig } from './rigs.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
let search: MatcherSearchPort;
beforeAll(async () => {
  db = builtinDatabase();
  search = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
});

/** Turns the named bones' node rotations by the given angles (radians) about their local axes, as a user posing a loaded file would. */
function pose(scene: Object3D, turns: Record<string, [number, number, number]>): void {
  for (const [name, [x, y, z]] of Object.entries(turns)) {
    const b = scene.getObjectByName(name);
    if (!b) throw new Error(`no bone ${name}`);
    b.quaternion.multiply(new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), x))
      .multiply(new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), y))
      .multiply(new Quaternion().setFromAxisAngle(new Vector3(0, 0, 1), z));
  }
  scene.updateMatrixWorld(true);
}

/** Drives a bind-pose load and a posed load of the same file over `steps`; the largest distance between their driven bones (m). */
async function compare(bytes: Uint8Array, turns: Record<string, [number, number, number]>, steps: number): Promise<{ worst: number; plain: ThreeRetargeter; posed: ThreeRetargeter; posedScene: Object3D }> {
  const a = await parseGlb(bytes), b = await parseGlb(bytes);
  pose(b.scene, turns);
  const plain = ThreeRetargeter.fromGltf(a.scene, db), posed = ThreeRetargeter.fromGltf(b.scene, db);
  const driven = plain.boneMap.map((e) => e.target);
  const c = new MotionMatchingController(db), input = createInput();
  const va = new Vector3(), vb = new Vector3();
  let worst = 0;
  for (let step = 0; step < steps; step++) {
    const t = step / 60, heading = t < 1 ? 0 : 1.1 * (t - 1);
    input.velocityX = 1.5 * Math.sin(heading); input.velocityZ = 1.5 * Math.cos(heading);
    c.update(1 / 60, input, search);
    plain.apply(c); posed.apply(c);
    a.scene.updateMatrixWorld(true); b.scene.updateMatrixWorld(true);
    for (const name of driven) {
      a.scene.getObjectByName(name)!.getWorldPosition(va);
      b.scene.getObjectByName(name)!.getWorldPosition(vb);
      worst = Math.max(worst, va.distanceTo(vb));
    }
  }
  return { worst, plain, posed, posedScene: b.scene };
}

describe('three adapter: a file saved while posed', () => {
  it('moves as the file saved in its bind pose (Unreal: A-pose, rolled axes, twist bones), within 0.1 mm', async () => {
    const bytes = buildGlb({ bones: unrealRig(databaseRig(db)) });
    const turns: Record<string, [number, number, number]> = {
      calf_l: [0.7, 0, 0.2], calf_r: [-0.5, 0.1, 0], thigh_l: [0.3, 0.2, 0], upperarm_r: [0, 0, 1.1],
      lowerarm_l: [0.4, 0.6, 0], spine_02: [0.2, 0.3, 0.1], pelvis: [0.1, 0.4, 0], foot_r: [0.3, 0, 0.2],
    };
    const r = await compare(bytes, turns, 180);
    console.log(`posed Unreal rig: largest driven-bone distance to the bind-pose file ${(r.worst * 1000).toFixed(4)} mm over 180 steps`);
    expect(r.posed.legRatio).toBeCloseTo(r.plain.legRatio, 6);
    expect(r.worst).toBeLessThan(1e-4);
  });

  it('bones nothing drives keep the pose the file was saved in (curled fingers stay curled)', async () => {
    const bytes = buildGlb({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 });
    const curl: [number, number, number] = [0, 0, 0.9];
    const r = await compare(bytes, { mixamorigLeftHandIndex1: curl, mixamorigLeftForeArm: [0.5, 0, 0] }, 60);
    expect(r.worst).toBeLessThan(1e-4);
    // The finger's rotation relative to its hand is the saved one after driving.
    const finger = r.posedScene.getObjectByName('mixamorigLeftHandIndex1')!;
    const reference = await parseGlb(bytes);
    const saved = reference.scene.getObjectByName('mixamorigLeftHandIndex1')!.quaternion.clone()
      .multiply(new Quaternion().setFromAxisAngle(new Vector3(0, 0, 1), curl[2]));
    expect(finger.quaternion.angleTo(saved)).toBeLessThan(1e-5);
  });
});
