/**
 * Characters unlike the capture (tests/three/rigs.ts), driven over 10 s of walking and turning,
 * measured on their own joints against the engine's output for the same run (measure.ts). The
 * diagnostic options that switch parts of the retargeting off must make the checks fail.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import {  Matcher, MatcherSearchPort, MotionMatchingController, createInput } from '../../src/index.js';
import type { Database } from '../../src/database/database.js';
import { ThreeRetargeter, parseGlb, type ThreeRetargeterOptions } from '../../src/three/index.js';
import { buildGlb, databaseRig, type RigSpec } from './fixtures.js';
import { mixamo65Rig, mixamoRig, unrealRig, vroidRig, vrmRig } from './rigs.js';
import { Recorder, jointSets, type Measures } from './measure.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

const DT = 1 / 60, STEPS = 600;

interface Case { name: string; spec: (db: Database) => RigSpec; options?: ThreeRetargeterOptions }
const CASES: Case[] = [
  { name: 'mixamo', spec: (db) => ({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 }) },
  { name: 'unreal', spec: (db) => ({ bones: unrealRig(databaseRig(db)) }) },
  { name: 'vrm', spec: (db) => ({ bones: vrmRig(databaseRig(db)) }) },
  { name: 'mixamo 65 bones', spec: (db) => ({ bones: mixamo65Rig(databaseRig(db)), armatureScale: 0.01 }) },
  { name: 'vroid', spec: (db) => ({ bones: vroidRig(databaseRig(db)) }) },
  // The crowd path (skinning matrices written directly), measured on its bones after updateBoneObjects().
  { name: 'unreal, output matrices', spec: (db) => ({ bones: unrealRig(databaseRig(db)) }), options: { output: 'matrices', keepBonesInScene: true } },
  // Diagnostics: each switches one part off and must fail a check.
  { name: 'unreal without bind-pose correction', spec: (db) => ({ bones: unrealRig(databaseRig(db)) }), options: { bindPoseCorrection: false } },
  { name: 'unreal without rest alignment', spec: (db) => ({ bones: unrealRig(databaseRig(db)) }), options: { restAlignment: false } },
  { name: 'unreal without foot IK', spec: (db) => ({ bones: unrealRig(databaseRig(db)) }), options: { footIK: false } },
  { name: 'mixamo without leg scaling', spec: (db) => ({ bones: mixamoRig(databaseRig(db)), armatureScale: 0.01 }), options: { scaleByLegLength: false } },
];

interface Result { target: Measures; engine: Measures; ratio: number; boneMap: string }
const results = new Map<string, Result>();
let db: Database;

beforeAll(async () => {
  db = builtinDatabase();
  const matcher = await Matcher.create(db);
  const search = new MatcherSearchPort(matcher, 'kdtree');
  const c = new MotionMatchingController(db);
  const input = createInput();
  const chars: Array<{ c: Case; gltf: GLTF; r: ThreeRetargeter; tRec: Recorder; eRec: Recorder }> = [];
  for (const k of CASES) {
    const gltf = await parseGlb(buildGlb(k.spec(db)));
    const r = ThreeRetargeter.fromGltf(gltf.scene, db, k.options);
    const sets = jointSets(r, db);
    chars.push({ c: k, gltf, r, tRec: new Recorder(r.rig.objects as never, sets.target), eRec: new Recorder(null, sets.engine) });
  }
  const hips = db.roles.hips;
  for (let step = 0; step < STEPS; step++) {
    const t = step * DT;
    // Walk ahead, turn left for 3 s, jog, turn right walking slowly.
    let speed = 1.4, heading = 0;
    if (t >= 3 && t < 6) heading = (t - 3) * (Math.PI / 3);
    else if (t >= 6 && t < 8) { heading = Math.PI; speed = 2.6; }
    else if (t >= 8) { heading = Math.PI - (t - 8) * (Math.PI / 2.5); speed = 1.1; }
    input.velocityX = speed * Math.sin(heading); input.velocityZ = speed * Math.cos(heading);
    c.update(DT, input, search);
    for (const ch of chars) {
      ch.r.apply(c);
      ch.r.updateBoneObjects();
      ch.gltf.scene.updateMatrixWorld(true);
      const engineDirs = ch.eRec.record(c, c.worldPositions[3 * hips + 1], null);
      ch.tRec.record(c, ch.r.naturalLegRatio * c.worldPositions[3 * hips + 1], engineDirs);
    }
  }
  for (const ch of chars) {
    results.set(ch.c.name, { target: ch.tRec.measures(DT), engine: ch.eRec.measures(DT), ratio: ch.r.legRatio, boneMap: ch.r.boneMap.map((e) => `${e.role}=${e.target}`).join(' ') });
  }
  for (const [name, r] of results) {
    const f = (x: number, d = 2): string => x.toFixed(d);
    console.log(`${name}: legRatio ${f(r.ratio, 3)} | skate ${f(r.target.skate)} cm/s vs engine ${f(r.engine.skate)} (+${f((r.target.skate / r.engine.skate - 1) * 100, 1)}%) | lowest foot ${f(r.target.lowest * 1000, 1)} mm (engine ${f(r.engine.lowest * 1000, 1)}) | knee front min ${f(r.target.kneeFront * 1000, 1)} mm (engine ${f(r.engine.kneeFront * 1000, 1)}) | hips median error ${f(r.target.hipsError * 100)} cm | limbs worst ${f(r.target.limbAngle)} deg`);
  }
});

/** The checks (each returns the failures, so that the diagnostics can assert they fail). */
function failures(r: Result): string[] {
  const out: string[] = [];
  // Skate: no more than the engine's own for the same run, +10%.
  if (!(r.target.skate <= r.engine.skate * 1.1)) out.push('skate');
  if (!(r.target.lowest >= -0.001)) out.push('floor');
  if (!(r.target.kneeFront >= -0.005)) out.push('knees');
  if (!(r.target.hipsError <= 0.02)) out.push('hips');
  if (!(r.target.limbAngle <= 1)) out.push('limbs');
  return out;
}

describe('three adapter: rigs unlike the capture', () => {
  it('finds the bones of every convention', () => {
    // (three's GLTFLoader loads "mixamorig:LeftUpLeg" as "mixamorigLeftUpLeg")
    expect(results.get('mixamo')!.boneMap).toContain('leftUpperLeg=mixamorigLeftUpLeg');
    expect(results.get('mixamo')!.boneMap).toContain('upperChest=mixamorigSpine2');
    expect(results.get('unreal')!.boneMap).toContain('leftLowerLeg=calf_l');
    expect(results.get('unreal')!.boneMap).toContain('leftToes=ball_l');
    expect(results.get('unreal')!.boneMap).not.toContain('twist');
    expect(results.get('vrm')!.boneMap).toContain('chest=chest');
    expect(results.get('vrm')!.boneMap).not.toContain('Toes');
    expect(results.get('mixamo 65 bones')!.boneMap).toContain('leftHand=mixamorigLeftHand');
    expect(results.get('mixamo 65 bones')!.boneMap).not.toMatch(/Thumb|Index|_End/);
    expect(results.get('vroid')!.boneMap).toContain('upperChest=J_Bip_C_UpperChest');
    expect(results.get('vroid')!.boneMap).toContain('leftToes=J_Bip_L_ToeBase');
    expect(results.get('vroid')!.boneMap).not.toMatch(/J_Sec|Thumb|Index/);
  });

  for (const name of ['mixamo', 'unreal', 'vrm', 'mixamo 65 bones', 'vroid', 'unreal, output matrices']) {
    it(`${name}: skate, floor, knees, hips and limbs within bounds`, () => {
      expect(failures(results.get(name)!)).toEqual([]);
    });
  }

  it('the checks fail when parts of the retargeting are switched off', () => {
    const f = (n: string): string[] => failures(results.get(n)!);
    console.log(Object.fromEntries([...results.keys()].map((n) => [n, f(n)])));
    expect(f('unreal without bind-pose correction').length).toBeGreaterThan(0);
    expect(f('unreal without rest alignment')).toContain('limbs');
    expect(f('unreal without foot IK').length).toBeGreaterThan(0);
    expect(f('mixamo without leg scaling')).toContain('hips');
  });
});
