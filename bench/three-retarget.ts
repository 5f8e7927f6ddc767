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
 *              (skeleton.update), with the retargeter's output 'matrices' (the crowd path: the
 *              skinning matrices written from the retargeted pose inside skeleton.update) and, with
 *              --output both (or bones), 'bones' (three's own path) on a second crowd in the same frames.
 * The target of issue 26: retarget + bone matrices at most a quarter of the engine's step.
 * Also reported: heap bytes per extra character (a clone and its retargeter; with --expose-gc).
 *
 * --far F puts that share of the characters (the last ones) at the coarsest default level of detail's
 * pose rate (the engine updates their pose every 4th step); --hold-pose and --root-relative give
 * the retargeters (not --baseline's) the holdPose and rootRelativeSkinning options.
 * --unseen F marks that share of the characters out of view (MotionMatchingController.unseen, as
 * the browser crowd does for characters out of the camera's view): the engine holds their pose,
 * the retargeter only places them, and skeleton.update() is not called for them (three does not
 * draw what is out of view). --baseline FILE times another build's retargeter module (say a copy of
 * dist/src/three/retargeter.js from before a change) on a crowd of its own in the same frames,
 * the crowds taking turns at going first.
 * --interleave (one crowd) also times every other frame with each character's apply() called right
 * after its controller's step completes (batch.finish), as a game loop stepping then drawing one
 * character at a time would: apply() then reads the controller's output from the caches. Reported:
 * those frames' engine step with the applies, less the other frames' engine step alone.
 *
 *   node --expose-gc dist/bench/three-retarget.js [--agents 1000] [--frames 300] [--rounds 3]
 *        [--output matrices|bones|both] [--unseen 0] [--far 0] [--hold-pose] [--root-relative] [--leg-scale 1] [--baseline FILE] [--interleave] [--json]
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
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { ThreeRetargeter, type ThreeRetargeterOptions } from '../src/three/retargeter.js';

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
 * per bone) so that three treats it as a real skinned character. With `legScale` other than 1 the
 * bones below the thighs (shins, feet, toes) are that many times the capture's: a character of
 * other proportions, whose feet the retargeter's foot IK must place on every step (with the
 * capture's proportions the retargeted pose has them where the engine does, and the IK has nothing to do).
 */
function mixamoCharacter(db: Database, legScale: number): { scene: Group; bones: number } {
  const s = db.skeleton, bones: Bone[] = [], r = db.roles;
  const scaled = new Set([r.leftFoot, r.rightFoot, r.leftToe, r.rightToe, s.parents[r.leftFoot], s.parents[r.rightFoot]]);
  for (let j = 0; j < s.names.length; j++) {
    const b = new Bone();
    b.name = `mixamorig${MIXAMO_NAMES[s.names[j]] ?? s.names[j]}`;
    const k = scaled.has(j) ? legScale : 1;
    b.position.set(k * s.offsets[3 * j], k * s.offsets[3 * j + 1], k * s.offsets[3 * j + 2]);
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

type Output = NonNullable<ThreeRetargeterOptions['output']>;

/** N clones of one character, each with its retargeter, and the time spent on them. */
interface Crowd {
  readonly output: Output;
  /** 'current', or the --baseline module's file. */
  readonly build: string;
  readonly clones: Group[];
  readonly meshes: SkinnedMesh[];
  readonly rigs: ThreeRetargeter[];
  /** Heap per extra character: the whole, the three.js clone, the retargeter (NaN without --expose-gc). */
  readonly bytesPerCharacter: number;
  readonly bytesPerClone: number;
  readonly bytesPerRetargeter: number;
  /** Per frame: the whole of it (ms), and totals of its parts: apply, updateMatrixWorld, skeleton.update. */
  readonly frameMs: number[];
  readonly phaseMs: number[];
}

/** Clones `original` N times (geometry shared) with a retargeter each; heap per clone measured with gc. */
function makeCrowd(original: Group, db: Database, N: number, output: Output, heap: (() => number) | null, Retargeter: typeof ThreeRetargeter = ThreeRetargeter, build = 'current', extra: ThreeRetargeterOptions = {}): Crowd {
  const before = heap?.() ?? 0;
  const clones: Group[] = [], rigs: ThreeRetargeter[] = [], meshes: SkinnedMesh[] = [];
  for (let i = 0; i < N; i++) {
    const c = cloneSkinned(original) as Group;
    clones.push(c);
    meshes.push(skinnedMeshOf(c));
  }
  const cloned = heap?.() ?? 0;
  for (let i = 0; i < N; i++) rigs.push(new Retargeter(db, clones[i], { ...extra, output }));
  const after = heap?.() ?? 0;
  const per = (bytes: number): number => (heap ? bytes / N : Number.NaN);
  // Clones share the geometry (with output 'matrices', a merged one whose attributes but skinIndex are the original's).
  const position = skinnedMeshOf(original).geometry.getAttribute('position');
  if (meshes.some((m) => m.geometry !== meshes[0].geometry || m.geometry.getAttribute('position') !== position)) throw new Error('three-retarget: clones do not share the geometry');
  return {
    output, build, clones, meshes, rigs, bytesPerCharacter: per(after - before), bytesPerClone: per(cloned - before), bytesPerRetargeter: per(after - cloned),
    frameMs: [], phaseMs: [0, 0, 0],
  };
}

/**
 * One frame of a crowd: the adapter's work, then what three does before drawing (world matrices,
 * bone matrices: not for the first `unseen` characters, out of view).
 */
function retargetStep(crowd: Crowd, controllers: readonly MotionMatchingController[], unseen: number, applied = false): number {
  const { clones, meshes, rigs, phaseMs } = crowd, N = rigs.length;
  const t0 = performance.now();
  if (!applied) for (let i = 0; i < N; i++) rigs[i].apply(controllers[i]);
  const t1 = performance.now();
  for (let i = 0; i < N; i++) clones[i].updateMatrixWorld(true);
  const t2 = performance.now();
  for (let i = unseen; i < N; i++) meshes[i].skeleton.update();
  const t3 = performance.now();
  if (!applied) { phaseMs[0] += t1 - t0; phaseMs[1] += t2 - t1; phaseMs[2] += t3 - t2; }
  return t3 - t0;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { agents: { type: 'string', default: '1000' }, frames: { type: 'string', default: '300' }, rounds: { type: 'string', default: '3' }, output: { type: 'string', default: 'matrices' }, unseen: { type: 'string', default: '0' }, baseline: { type: 'string' }, interleave: { type: 'boolean', default: false }, far: { type: 'string', default: '0' }, 'hold-pose': { type: 'boolean', default: false }, 'root-relative': { type: 'boolean', default: false }, 'leg-scale': { type: 'string', default: '1' }, help: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } } });
  if (values.help) {
    process.stdout.write([
      'node --expose-gc dist/bench/three-retarget.js [options]   (docs/three.md, "Cost")',
      '  --agents N            characters, clones of one 65-bone rig (default 1000)',
      '  --frames F --rounds R frames per round, rounds (default 300, 3)',
      "  --output O            the retargeters' output: matrices (default), bones, or both (two crowds)",
      '  --unseen F            share of the characters out of view (controller.unseen; not drawn)',
      '  --far F               share of the characters far away: the engine updates their pose every 4th step',
      "  --hold-pose           the retargeters' holdPose option (held poses only placed; not --baseline's)",
      "  --root-relative       the retargeters' rootRelativeSkinning option (not --baseline's)",
      '  --leg-scale S         shins and feet S times the capture\'s (default 1: its proportions; foot IK then solves every leg)',
      "  --baseline FILE       another build's retargeter module, timed on its own crowd in the same frames",
      "  --interleave          also time each character's apply() right after its controller's step",
      '  --json                one JSON object',
    ].join('\n') + '\n');
    return;
  }
  const N = Number(values.agents), frames = Number(values.frames), rounds = Number(values.rounds);
  if (!(Number.isInteger(N) && N >= 1 && N <= 100_000)) throw new RangeError(`--agents must be an integer in [1, 100000], got ${values.agents}`);
  if (!(Number.isInteger(frames) && frames >= 10)) throw new RangeError(`--frames must be an integer >= 10, got ${values.frames}`);
  if (!(Number.isInteger(rounds) && rounds >= 1)) throw new RangeError(`--rounds must be an integer >= 1, got ${values.rounds}`);
  const unseenShare = Number(values.unseen);
  if (!(unseenShare >= 0 && unseenShare <= 1)) throw new RangeError(`--unseen must be a share in [0, 1], got ${values.unseen}`);
  const unseen = Math.round(unseenShare * N);
  const farShare = Number(values.far);
  if (!(farShare >= 0 && farShare <= 1)) throw new RangeError(`--far must be a share in [0, 1], got ${values.far}`);
  const far = Math.round(farShare * N);
  const outputs: Output[] = values.output === 'both' ? ['matrices', 'bones'] : values.output === 'matrices' || values.output === 'bones' ? [values.output] : [];
  if (outputs.length === 0) throw new RangeError(`--output must be matrices, bones or both, got ${values.output}`);
  const legScale = Number(values['leg-scale']);
  if (!(legScale >= 0.5 && legScale <= 2)) throw new RangeError(`--leg-scale must be a number in [0.5, 2], got ${values['leg-scale']}`);
  const gc = (globalThis as { gc?: () => void }).gc;
  const db = buildDatabase(builtinSources());
  const matcher = await Matcher.create(db);
  const { scene: original, bones } = mixamoCharacter(db, legScale);

  // Memory per extra character: a clone sharing geometry and material, and its retargeter.
  const heap = gc ? (): number => { gc(); gc(); return process.memoryUsage().heapUsed; } : null;
  const extra: ThreeRetargeterOptions = { ...(values['hold-pose'] ? { holdPose: true } : {}), ...(values['root-relative'] ? { rootRelativeSkinning: true } : {}) };
  const crowds = outputs.map((o) => makeCrowd(original, db, N, o, heap, ThreeRetargeter, 'current', extra));
  if (values.baseline !== undefined) {
    const mod = await import(pathToFileURL(resolve(values.baseline)).href) as { ThreeRetargeter?: typeof ThreeRetargeter };
    if (typeof mod.ThreeRetargeter !== 'function') throw new Error(`--baseline ${values.baseline}: no ThreeRetargeter exported`);
    for (const o of outputs) crowds.push(makeCrowd(original, db, N, o, heap, mod.ThreeRetargeter, values.baseline));
  }

  const interleave = values.interleave === true;
  if (interleave && crowds.length !== 1) throw new RangeError('--interleave times one crowd: not with --output both or --baseline');
  const controllers: MotionMatchingController[] = [], drivers: ScriptedDriver[] = [], inputs: ControllerInput[] = [];
  const dt = 1 / 60;
  for (let i = 0; i < N; i++) {
    const c = new MotionMatchingController(db);
    c.reset(c.frame, 3 * (i % 32), 3 * Math.floor(i / 32), 0);
    c.unseen = i < unseen;
    // The last `far` characters: the pose rate of the coarsest default level of detail (searches as before).
    if (i >= N - far) c.setLevel(c.options, { fullSearchInterval: 0, localSeconds: 0, poseEvery: 4 });
    controllers.push(c);
    drivers.push(new ScriptedDriver('wander', 1, i, dt));
    inputs.push(createInput());
  }
  const batch = new CrowdSearchBatch(db.stride, 'kdtree', N);
  const engineStep = (rigs: readonly ThreeRetargeter[] | null = null): void => {
    batch.begin();
    for (let i = 0; i < N; i++) {
      drivers[i].drive(controllers[i].rootPosition, inputs[i]);
      if (controllers[i].prepare(dt, inputs[i])) batch.add(controllers[i], i);
    }
    batch.search(matcher);
    if (rigs === null) for (let i = 0; i < N; i++) batch.finish(controllers[i], i);
    else for (let i = 0; i < N; i++) { batch.finish(controllers[i], i); rigs[i].apply(controllers[i]); }
  };
  // Warm-up: the JIT sees every path before anything is timed.
  for (let f = 0; f < 60; f++) {
    if (interleave && f % 2 === 1) { engineStep(crowds[0].rigs); retargetStep(crowds[0], controllers, unseen, true); continue; }
    engineStep(); for (const crowd of crowds) retargetStep(crowd, controllers, unseen);
  }
  for (const crowd of crowds) crowd.phaseMs.fill(0);
  const engineMs: number[] = [];
  // --interleave: per odd frame, the engine step with the applies, and the world and bone matrices after it.
  const withApplyMs: number[] = [], afterMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (let f = 0; f < frames; f++) {
      if (interleave && f % 2 === 1) {
        const t0 = performance.now();
        engineStep(crowds[0].rigs);
        withApplyMs.push(performance.now() - t0);
        afterMs.push(retargetStep(crowds[0], controllers, unseen, true));
        continue;
      }
      const t0 = performance.now();
      engineStep();
      engineMs.push(performance.now() - t0);
      // Several crowds take turns at going first (the first one finds the controllers' output in the caches less often).
      for (let k = 0; k < crowds.length; k++) { const crowd = crowds[(k + f) % crowds.length]; crowd.frameMs.push(retargetStep(crowd, controllers, unseen)); }
    }
  }
  for (const crowd of crowds) for (const m of crowd.meshes) for (let k = 0; k < m.skeleton.boneMatrices!.length; k++) {
    if (!Number.isFinite(m.skeleton.boneMatrices![k])) throw new Error('three-retarget: a bone matrix is not finite');
  }
  const engine = median(engineMs), total = engineMs.length;
  const perRound = total / rounds;
  const rows = crowds.map((crowd) => {
    const ms = median(crowd.frameMs);
    return {
      output: crowd.output, build: crowd.build, retargetMsPerFrame: ms, ratio: ms / engine, met: ms / engine <= 0.25,
      bytesPerCharacter: Number.isFinite(crowd.bytesPerCharacter) ? Math.round(crowd.bytesPerCharacter) : null,
      bytesPerClone: Number.isFinite(crowd.bytesPerClone) ? Math.round(crowd.bytesPerClone) : null,
      bytesPerRetargeter: Number.isFinite(crowd.bytesPerRetargeter) ? Math.round(crowd.bytesPerRetargeter) : null,
      // Mean per frame of each part: ThreeRetargeter.apply, three's world matrices, the bone matrices.
      applyMsPerFrame: crowd.phaseMs[0] / total, matrixWorldMsPerFrame: crowd.phaseMs[1] / total, boneMatricesMsPerFrame: crowd.phaseMs[2] / total,
      // Per-round medians (the spread over the run).
      roundRatios: Array.from({ length: rounds }, (_, r) => median(crowd.frameMs.slice(r * perRound, (r + 1) * perRound)) / median(engineMs.slice(r * perRound, (r + 1) * perRound))),
    };
  });
  // Interleaved: apply()'s share of the engine step it ran in, plus the world and bone matrices.
  const interleaved = interleave ? {
    frames: withApplyMs.length, engineWithApplyMsPerFrame: median(withApplyMs), applyMsPerFrame: median(withApplyMs) - engine,
    matricesMsPerFrame: median(afterMs), ratio: (median(withApplyMs) - engine + median(afterMs)) / engine,
  } : null;
  const report = { agents: N, legScale, unseen, far, holdPose: values['hold-pose'] === true, rootRelativeSkinning: values['root-relative'] === true, bones, frames: total, hz: 60, engineMsPerFrame: engine, target: 0.25, crowds: rows, interleaved };
  if (values.json) { process.stdout.write(JSON.stringify(report) + '\n'); return; }
  const lines = [
    `three.js characters: ${N} clones of a ${bones}-bone Mixamo-style rig${legScale !== 1 ? ` (shins and feet ${legScale} times the capture's)` : ''}${unseen > 0 ? ` (${unseen} out of view)` : ''}${far > 0 ? ` (${far} far: pose every 4th step)` : ''}${values['hold-pose'] ? ', holdPose' : ''}${values['root-relative'] ? ', rootRelativeSkinning' : ''}, ${total} frames at 60 Hz (median per frame)`,
    `  engine step (prepare, batched search, complete)      ${engine.toFixed(2)} ms (${(1000 * engine / N).toFixed(2)} us per character)`,
  ];
  for (const r of rows) {
    lines.push(
      `  output '${r.output}'${r.build === 'current' ? '' : ` (${r.build})`}: retarget + world and bone matrices ${r.retargetMsPerFrame.toFixed(2)} ms  (${(100 * r.ratio).toFixed(0)}% of the engine's step; target <= 25%; rounds ${r.roundRatios.map((x) => `${(100 * x).toFixed(0)}%`).join(', ')})`,
      `    of which ThreeRetargeter.apply ${r.applyMsPerFrame.toFixed(2)} ms, updateMatrixWorld ${r.matrixWorldMsPerFrame.toFixed(2)} ms, skeleton.update ${r.boneMatricesMsPerFrame.toFixed(2)} ms (means; per character ${[r.applyMsPerFrame, r.matrixWorldMsPerFrame, r.boneMatricesMsPerFrame].map((x) => (1000 * x / N).toFixed(2)).join(' / ')} us)`,
      `    heap per extra character ${r.bytesPerCharacter === null || r.bytesPerClone === null || r.bytesPerRetargeter === null ? 'n/a (run node with --expose-gc)' : `${(r.bytesPerCharacter / 1024).toFixed(1)} KB: the three.js clone ${(r.bytesPerClone / 1024).toFixed(1)} KB, its retargeter ${(r.bytesPerRetargeter / 1024).toFixed(1)} KB`}`,
    );
  }
  if (interleaved !== null) {
    lines.push(
      `  interleaved (apply() right after each controller's step; ${interleaved.frames} other frames): engine step with the applies ${interleaved.engineWithApplyMsPerFrame.toFixed(2)} ms, so apply ${interleaved.applyMsPerFrame.toFixed(2)} ms (${(1000 * interleaved.applyMsPerFrame / N).toFixed(2)} us per character);`,
      `    with the world and bone matrices after it (${interleaved.matricesMsPerFrame.toFixed(2)} ms) ${(100 * interleaved.ratio).toFixed(0)}% of the engine's step`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((e: Error) => { process.stderr.write(`three-retarget: ${e.message}\n`); process.exit(1); });
