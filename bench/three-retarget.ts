/**
 * What driving your own three.js characters costs beside the engine (docs/three.md, "Cost"): a crowd
 * of N characters with a 65-bone Mixamo-style rig (the 22 capture joints under Mixamo names, four
 * bones per finger, end bones), every character a clone of one loaded rig sharing its geometry.
 *
 * Per frame (60 Hz) and measured side by side in the same frames, so the machine's noise hits both:
 *   engine   — the crowd's own step: prepare every controller, one batched search, complete every
 *              controller (playback, inertialization, root motion, foot IK), as sim/agents.ts does;
 *   retarget — ThreeRetargeter.apply for every character, then what three does before drawing a
 *              skinned mesh: the world matrices (updateMatrixWorld) and the bone matrices
 *              (skeleton.update).
 * The target of issue 26: retarget + bone matrices at most a quarter of the engine's step.
 * Also reported: heap bytes per extra character (a clone and its retargeter; with --expose-gc).
 *
 *   node --expose-gc dist/bench/three-retarget.js [--agents 1000] [--frames 300] [--rounds 3] [--json]
 */
import { parseArgs } from 'node:util';
import { Bone, BufferGeometry, Float32BufferAttribute, Group, MeshBasicMaterial, Skeleton, SkinnedMesh, Uint16BufferAttribute, type Object3D } from 'three';
import { clone as cloneSkinned } from 'three/examples/jsm/utils/SkeletonUtils.js';
import { buildDatabase } from '../src/database/build.js';
import { builtinSources } from '../src/database/builtin-sources.js';
import type { Database } from '../src/database/database.js';
import { Matcher } from '../src/search/matcher.js';
import { MotionMatchingController, createInput, type ControllerInput } from '../src/runtime/controller/controller.js';
import { CrowdSearchBatch } from '../src/runtime/crowd/batch.js';
import { ScriptedDriver } from '../src/sim/scenarios.js';
import { ThreeRetargeter } from '../src/three/retargeter.js';

/** The built-in skeleton's joints under Mixamo's names (as three's loader spells them: no colon). */
const MIXAMO_NAMES: Record<string, string> = {
  pelvis: 'Hips', spine_01: 'Spine', spine_02: 'Spine1', spine_03: 'Spine2', neck: 'Neck', head: 'Head',
  clavicle_l: 'LeftShoulder', upperarm_l: 'LeftArm', lowerarm_l: 'LeftForeArm', hand_l: 'LeftHand',
  clavicle_r: 'RightShoulder', upperarm_r: 'RightArm', lowerarm_r: 'RightForeArm', hand_r: 'RightHand',
  thigh_l: 'LeftUpLeg', calf_l: 'LeftLeg', foot_l: 'LeftFoot', toe_l: 'LeftToeBase',
  thigh_r: 'RightUpLeg', calf_r: 'RightLeg', foot_r: 'RightFoot', toe_r: 'RightToeBase',
};
const FINGERS = ['Thumb', 'Index', 'Middle', 'Ring', 'Pinky'];

/**
 * A Mixamo-style character: the database skeleton's rest pose under Mixamo names, 4 bones per finger
 * on each hand and end bones on the head and toes (65 bones), skinned to a small mesh (8 vertices
 * per bone) so that three treats it as a real skinned character.
 */
function mixamoCharacter(db: Database): { scene: Group; bones: number } {
  const s = db.skeleton, bones: Bone[] = [];
  for (let j = 0; j < s.names.length; j++) {
    const b = new Bone();
    b.name = `mixamorig${MIXAMO_NAMES[s.names[j]] ?? s.names[j]}`;
    b.position.set(s.offsets[3 * j], s.offsets[3 * j + 1], s.offsets[3 * j + 2]);
    if (s.parents[j] >= 0) bones[s.parents[j]].add(b);
    bones.push(b);
  }
  const extra = (parent: Bone, name: string, x: number, y: number, z: number): Bone => {
    const b = new Bone();
    b.name = `mixamorig${name}`;
    b.position.set(x, y, z);
    parent.add(b);
    bones.push(b);
    return b;
  };
  for (const [side, hand, sign] of [['Left', db.skeleton.names.indexOf('hand_l'), 1], ['Right', db.skeleton.names.indexOf('hand_r'), -1]] as const) {
    FINGERS.forEach((f, i) => {
      let b = extra(bones[hand], `${side}Hand${f}1`, sign * 0.04, 0, (i - 2) * 0.018);
      for (let k = 2; k <= 4; k++) b = extra(b, `${side}Hand${f}${k}`, sign * 0.025, 0, 0);
    });
  }
  extra(bones[db.skeleton.names.indexOf('head')], 'HeadTop_End', 0, 0.18, 0);
  extra(bones[db.roles.leftToe], 'LeftToe_End', 0, 0, 0.05);
  extra(bones[db.roles.rightToe], 'RightToe_End', 0, 0, 0.05);
  const scene = new Group();
  scene.add(bones[0]);
  scene.updateMatrixWorld(true);
  const position: number[] = [], skinIndex: number[] = [], skinWeight: number[] = [];
  bones.forEach((b, i) => {
    const p = b.getWorldPosition(b.position.clone());
    for (let v = 0; v < 8; v++) {
      position.push(p.x + (v & 1 ? 0.02 : -0.02), p.y + (v & 2 ? 0.02 : -0.02), p.z + (v & 4 ? 0.02 : -0.02));
      skinIndex.push(i, 0, 0, 0);
      skinWeight.push(1, 0, 0, 0);
    }
  });
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute(position, 3));
  geometry.setAttribute('skinIndex', new Uint16BufferAttribute(skinIndex, 4));
  geometry.setAttribute('skinWeight', new Float32BufferAttribute(skinWeight, 4));
  const mesh = new SkinnedMesh(geometry, new MeshBasicMaterial());
  mesh.name = 'Body';
  scene.add(mesh);
  mesh.bind(new Skeleton(bones));
  return { scene, bones: bones.length };
}

function skinnedMeshOf(root: Object3D): SkinnedMesh {
  let found: SkinnedMesh | null = null;
  root.traverse((o) => { if (!found && (o as SkinnedMesh).isSkinnedMesh) found = o as SkinnedMesh; });
  if (!found) throw new Error('three-retarget: the clone has no skinned mesh');
  return found;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[s.length >> 1] : Number.NaN;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { agents: { type: 'string', default: '1000' }, frames: { type: 'string', default: '300' }, rounds: { type: 'string', default: '3' }, json: { type: 'boolean', default: false } } });
  const N = Number(values.agents), frames = Number(values.frames), rounds = Number(values.rounds);
  if (!(Number.isInteger(N) && N >= 1 && N <= 100_000)) throw new RangeError(`--agents must be an integer in [1, 100000], got ${values.agents}`);
  if (!(Number.isInteger(frames) && frames >= 10)) throw new RangeError(`--frames must be an integer >= 10, got ${values.frames}`);
  if (!(Number.isInteger(rounds) && rounds >= 1)) throw new RangeError(`--rounds must be an integer >= 1, got ${values.rounds}`);
  const gc = (globalThis as { gc?: () => void }).gc;
  const db = buildDatabase(builtinSources());
  const matcher = await Matcher.create(db);
  const { scene: original, bones } = mixamoCharacter(db);

  // Memory per extra character: a clone sharing geometry and material, and its retargeter.
  const heap = (): number => { gc?.(); gc?.(); return process.memoryUsage().heapUsed; };
  const before = heap();
  const clones: Group[] = [], rigs: ThreeRetargeter[] = [], meshes: SkinnedMesh[] = [];
  for (let i = 0; i < N; i++) {
    const c = cloneSkinned(original) as Group;
    clones.push(c);
    meshes.push(skinnedMeshOf(c));
    rigs.push(new ThreeRetargeter(db, c));
  }
  const bytesPerCharacter = gc ? (heap() - before) / N : Number.NaN;
  if (meshes[0].geometry !== skinnedMeshOf(original).geometry) throw new Error('three-retarget: clones do not share the geometry');

  const controllers: MotionMatchingController[] = [], drivers: ScriptedDriver[] = [], inputs: ControllerInput[] = [];
  const dt = 1 / 60;
  for (let i = 0; i < N; i++) {
    const c = new MotionMatchingController(db);
    c.reset(c.frame, 3 * (i % 32), 3 * Math.floor(i / 32), 0);
    controllers.push(c);
    drivers.push(new ScriptedDriver('wander', 1, i, dt));
    inputs.push(createInput());
  }
  const batch = new CrowdSearchBatch(db.stride, 'kdtree', N);
  const engineStep = (): void => {
    batch.begin();
    for (let i = 0; i < N; i++) {
      drivers[i].drive(controllers[i].rootPosition, inputs[i]);
      if (controllers[i].prepare(dt, inputs[i])) batch.add(controllers[i], i);
    }
    batch.search(matcher);
    for (let i = 0; i < N; i++) batch.finish(controllers[i], i);
  };
  // Three passes over the crowd, timed apart: what the adapter does, then what three does.
  const phaseMs = [0, 0, 0];
  const retargetStep = (): void => {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) rigs[i].apply(controllers[i]);
    const t1 = performance.now();
    for (let i = 0; i < N; i++) clones[i].updateMatrixWorld(true);
    const t2 = performance.now();
    for (let i = 0; i < N; i++) meshes[i].skeleton.update();
    const t3 = performance.now();
    phaseMs[0] += t1 - t0; phaseMs[1] += t2 - t1; phaseMs[2] += t3 - t2;
  };
  // Warm-up: the JIT sees both paths before anything is timed.
  for (let f = 0; f < 60; f++) { engineStep(); retargetStep(); }
  phaseMs.fill(0);
  const engineMs: number[] = [], retargetMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (let f = 0; f < frames; f++) {
      const t0 = performance.now();
      engineStep();
      const t1 = performance.now();
      retargetStep();
      const t2 = performance.now();
      engineMs.push(t1 - t0);
      retargetMs.push(t2 - t1);
    }
  }
  for (const m of meshes) for (let k = 0; k < m.skeleton.boneMatrices!.length; k++) {
    if (!Number.isFinite(m.skeleton.boneMatrices![k])) throw new Error('three-retarget: a bone matrix is not finite');
  }
  const engine = median(engineMs), retarget = median(retargetMs);
  const report = {
    agents: N, bones, frames: frames * rounds, hz: 60,
    engineMsPerFrame: engine, retargetMsPerFrame: retarget, ratio: retarget / engine,
    target: 0.25, met: retarget / engine <= 0.25,
    bytesPerCharacter: Number.isFinite(bytesPerCharacter) ? Math.round(bytesPerCharacter) : null,
    // Mean per frame of each part: ThreeRetargeter.apply, three's world matrices, three's bone matrices.
    applyMsPerFrame: phaseMs[0] / (frames * rounds), matrixWorldMsPerFrame: phaseMs[1] / (frames * rounds), boneMatricesMsPerFrame: phaseMs[2] / (frames * rounds),
  };
  if (values.json) { process.stdout.write(JSON.stringify(report) + '\n'); return; }
  process.stdout.write([
    `three.js characters: ${N} clones of a ${bones}-bone Mixamo-style rig, ${frames * rounds} frames at 60 Hz (median per frame)`,
    `  engine step (prepare, batched search, complete)   ${engine.toFixed(2)} ms`,
    `  retarget + world and bone matrices                ${retarget.toFixed(2)} ms  (${(100 * retarget / engine).toFixed(0)}% of the engine's step; target <= 25%)`,
    `    of which ThreeRetargeter.apply ${report.applyMsPerFrame.toFixed(2)} ms, updateMatrixWorld ${report.matrixWorldMsPerFrame.toFixed(2)} ms, skeleton.update ${report.boneMatricesMsPerFrame.toFixed(2)} ms (means)`,
    `  heap per extra character (clone + retargeter)     ${report.bytesPerCharacter === null ? 'n/a (run node with --expose-gc)' : `${(report.bytesPerCharacter / 1024).toFixed(1)} KB`}`,
  ].join('\n') + '\n');
}

main().catch((e: Error) => { process.stderr.write(`three-retarget: ${e.message}\n`); process.exit(1); });
