/**
 * A VRM loaded the way three.js users load one, with @pixiv/three-vrm's VRMLoaderPlugin (a VRM 1.0
 * file built here from the VRoid-style rig: VRMC_vrm humanoid bones on J_Bip_* nodes). The adapter
 * drives the raw bones of `vrm.scene`; three-vrm's `vrm.update(dt)` (spring bones, expressions,
 * look-at) runs after it each frame with `vrm.humanoid.autoUpdateHumanBones = false`, and then leaves
 * the pose as a plain glTF load of the same file gets it. With three-vrm's default (true) vrm.update
 * copies its normalized rig onto the raw bones and undoes the retargeting: the check shows that
 * too, which is why docs/three.md says to switch it off.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Vector3, type Object3D } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { VRMLoaderPlugin, type VRM } from '@pixiv/three-vrm';
import {  Matcher, MatcherSearchPort, MotionMatchingController, createInput } from '../../src/index.js';
import type { Database } from '../../src/database/database.js';
import { ThreeRetargeter, parseGlb } from '../../src/three/index.js';
import { buildGlb, databaseRig, packGlb } from './fixtures.js';
import { vroidRig } from './rigs.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
let search: MatcherSearchPort;
beforeAll(async () => {
  db = builtinDatabase();
  search = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
});

const HUMAN_BONES: Record<string, string> = {
  hips: 'J_Bip_C_Hips', spine: 'J_Bip_C_Spine', chest: 'J_Bip_C_Chest', upperChest: 'J_Bip_C_UpperChest', neck: 'J_Bip_C_Neck', head: 'J_Bip_C_Head',
  leftShoulder: 'J_Bip_L_Shoulder', leftUpperArm: 'J_Bip_L_UpperArm', leftLowerArm: 'J_Bip_L_LowerArm', leftHand: 'J_Bip_L_Hand',
  rightShoulder: 'J_Bip_R_Shoulder', rightUpperArm: 'J_Bip_R_UpperArm', rightLowerArm: 'J_Bip_R_LowerArm', rightHand: 'J_Bip_R_Hand',
  leftUpperLeg: 'J_Bip_L_UpperLeg', leftLowerLeg: 'J_Bip_L_LowerLeg', leftFoot: 'J_Bip_L_Foot', leftToes: 'J_Bip_L_ToeBase',
  rightUpperLeg: 'J_Bip_R_UpperLeg', rightLowerLeg: 'J_Bip_R_LowerLeg', rightFoot: 'J_Bip_R_Foot', rightToes: 'J_Bip_R_ToeBase',
};

/** The GLB with a VRMC_vrm 1.0 extension naming its humanoid bones (what VRoid Studio writes, minus materials). */
function withVrmExtension(glb: Uint8Array): Uint8Array {
  const dv = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLength = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength))) as { nodes: Array<{ name?: string }>; extensionsUsed?: string[]; extensions?: Record<string, unknown> };
  const binAt = 20 + jsonLength;
  const bin = binAt + 8 <= glb.byteLength ? glb.subarray(binAt + 8, binAt + 8 + dv.getUint32(binAt, true)) : new Uint8Array(0);
  const humanBones: Record<string, { node: number }> = {};
  for (const [bone, name] of Object.entries(HUMAN_BONES)) {
    const node = json.nodes.findIndex((n) => n.name === name);
    if (node < 0) throw new Error(`fixture has no node ${name}`);
    humanBones[bone] = { node };
  }
  json.extensionsUsed = [...(json.extensionsUsed ?? []), 'VRMC_vrm'];
  json.extensions = {
    ...(json.extensions ?? {}),
    VRMC_vrm: {
      specVersion: '1.0',
      meta: { name: 'motionmatch test', version: '1', authors: ['motionmatch tests'], licenseUrl: 'https://vrm.dev/licenses/1.0/', avatarPermission: 'onlyAuthor', commercialUsage: 'personalNonProfit', creditNotation: 'required', allowRedistribution: false, modification: 'prohibited' },
      humanoid: { humanBones },
    },
  };
  return packGlb(JSON.stringify(json), bin);
}

/** Largest distance (m) between the driven bones of two loads over `steps` of walking and turning; `after` runs after each apply. */
async function drive(plain: Object3D, other: Object3D, steps: number, after: () => void): Promise<number> {
  const a = ThreeRetargeter.fromGltf(plain, db), b = ThreeRetargeter.fromGltf(other, db);
  const names = a.boneMap.map((e) => e.target);
  expect(b.boneMap.map((e) => e.target)).toEqual(names);
  const c = new MotionMatchingController(db), input = createInput();
  const va = new Vector3(), vb = new Vector3();
  let worst = 0;
  for (let s = 0; s < steps; s++) {
    const t = s / 60, heading = t < 1 ? 0 : 1.2 * (t - 1);
    input.velocityX = 1.4 * Math.sin(heading); input.velocityZ = 1.4 * Math.cos(heading);
    c.update(1 / 60, input, search);
    a.apply(c); b.apply(c);
    after();
    plain.updateMatrixWorld(true); other.updateMatrixWorld(true);
    for (const n of names) {
      plain.getObjectByName(n)!.getWorldPosition(va);
      other.getObjectByName(n)!.getWorldPosition(vb);
      worst = Math.max(worst, va.distanceTo(vb));
    }
  }
  return worst;
}

async function loadVrm(bytes: Uint8Array): Promise<VRM> {
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  const gltf = await parseGlb(bytes, loader);
  const vrm = gltf.userData.vrm as VRM | undefined;
  if (!vrm) throw new Error('three-vrm did not read the file as a VRM');
  return vrm;
}

describe('three adapter: a VRM through @pixiv/three-vrm', () => {
  it('drives vrm.scene as a plain load of the file, with vrm.update(dt) after it (autoUpdateHumanBones off), within 0.1 mm', async () => {
    const bytes = withVrmExtension(buildGlb({ bones: vroidRig(databaseRig(db)) }));
    const vrm = await loadVrm(bytes);
    expect(vrm.humanoid.getRawBoneNode('leftFoot')?.name).toBe('J_Bip_L_Foot');
    vrm.humanoid.autoUpdateHumanBones = false;
    const plain = (await parseGlb(bytes)).scene;
    const worst = await drive(plain, vrm.scene, 240, () => vrm.update(1 / 60));
    console.log(`three-vrm ${'3.5.5'}: largest driven-bone distance to a plain glTF load ${(worst * 1000).toFixed(4)} mm over 240 steps`);
    expect(worst).toBeLessThan(1e-4);
  });

  it("with three-vrm's default (autoUpdateHumanBones true), vrm.update undoes the retargeting: the recipe's switch is needed", async () => {
    const bytes = withVrmExtension(buildGlb({ bones: vroidRig(databaseRig(db)) }));
    const vrm = await loadVrm(bytes);
    expect(vrm.humanoid.autoUpdateHumanBones).toBe(true);
    const plain = (await parseGlb(bytes)).scene;
    const worst = await drive(plain, vrm.scene, 120, () => vrm.update(1 / 60));
    expect(worst).toBeGreaterThan(0.05);
  });
});
