/**
 * Oracle test: our BVH import + forward kinematics against three.js's BVHLoader + Bone hierarchy on
 * every real mocap file (../shared/data/mocap/{core,bench}), every frame, every joint and end site.
 *
 * Conventions:
 *   - translationMode 'add' is three's convention (local translation = OFFSET + position channels):
 *     compared against three unmodified.
 *   - translationMode 'replace' (our default) makes the position channels the whole local
 *     translation. three adds each bone's OFFSET to every position key, so for the axes a joint has
 *     position channels for, its keys are rebased by subtracting the bone's OFFSET (= the bone's
 *     rest position, captured before any key is applied); axes without a channel keep the OFFSET in
 *     both conventions.
 * Both are compared in metres (the files are centimetres: three's values are scaled by 0.01 and we
 * parse with scale 0.01) within 1e-4 m. three stores keyframe values as float32, hence the tolerance.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bone, Vector3, type KeyframeTrack } from 'three';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { parseBvh } from '../../src/import/bvh/bvh.js';
import type { BvhImport, BvhTranslationMode } from '../../src/import/bvh/bvh.js';
import { listBvhFiles } from '../../src/import/bvh/bvh-node.js';
import { worldTransformsOfFrames } from '../../src/anim/pose.js';
import { quatRotateVec3 } from '../../src/math/quat.js';
import { expectSameNumbers } from '../helpers/same-numbers.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const mocapDir = resolve(repoRoot, '../shared/data/mocap');
const hasMocap = existsSync(join(mocapDir, 'core')) && existsSync(join(mocapDir, 'bench'));
if (!hasMocap) console.log(`bvh-three-oracle: skipping, real mocap not found at ${mocapDir} (see ../shared/data/mocap/README.md)`);

const TOL_M = 1e-4;
const CM = 0.01;

interface ThreeRig {
  root: Bone;
  /** All bones in file order, end sites included (named 'ENDSITE'). */
  bones: Bone[];
  /** Rest position (= OFFSET) of each bone, captured at load. */
  rest: Vector3[];
  pos: (Float32Array | null)[];
  quat: (Float32Array | null)[];
  frames: number;
}

function loadThree(text: string): ThreeRig {
  const { skeleton, clip } = new BVHLoader().parse(text);
  const tracks = new Map<string, KeyframeTrack>(clip.tracks.map((t) => [t.name, t]));
  const bones = skeleton.bones;
  const pos = bones.map((b) => (b.name === 'ENDSITE' ? null : (tracks.get(`${b.name}.position`)!.values as Float32Array)));
  const quat = bones.map((b) => (b.name === 'ENDSITE' ? null : (tracks.get(`${b.name}.quaternion`)!.values as Float32Array)));
  const frames = quat[0]!.length / 4;
  return { root: bones[0], bones, rest: bones.map((b) => b.position.clone()), pos, quat, frames };
}

/** Max distance (metres) between our world positions and three's over all frames, joints and end sites. */
function compare(ours: BvhImport, rig: ThreeRig, mode: BvhTranslationMode): number {
  const { skeleton, clip, channels } = ours;
  const J = skeleton.names.length, F = clip.frameCount;
  const wr = new Float64Array(F * J * 4), wp = new Float64Array(F * J * 3);
  worldTransformsOfFrames(skeleton.parents, clip.rotations, clip.translations, F, wr, wp);

  // Map three's bones to our joints (by name) and end sites (in file order, checking the parent).
  const jointOf: number[] = [];
  let endSite = 0;
  for (const b of rig.bones) {
    if (b.name === 'ENDSITE') {
      expect(skeleton.names[skeleton.endSiteParents[endSite]]).toBe((b.parent as Bone).name);
      jointOf.push(-1 - endSite++);
    } else {
      const j = skeleton.names.indexOf(b.name);
      expect(j).toBeGreaterThanOrEqual(0);
      jointOf.push(j);
    }
  }
  expect(endSite).toBe(skeleton.endSiteParents.length);
  expect(jointOf.filter((j) => j >= 0).length).toBe(J);

  // Axes that carry a position channel, per joint (for rebasing in 'replace' mode).
  const posAxes = channels.map((c) => [0, 1, 2].map((a) => c.names.includes((['Xposition', 'Yposition', 'Zposition'] as const)[a])));

  let worst = 0;
  const v = new Vector3();
  const es = new Float64Array(3);
  for (let f = 0; f < F; f++) {
    rig.bones.forEach((b, i) => {
      const p = rig.pos[i], q = rig.quat[i];
      if (!p || !q) return;
      b.position.fromArray(p, 3 * f);
      b.quaternion.fromArray(q, 4 * f);
      if (mode === 'replace') {
        const axes = posAxes[jointOf[i]];
        if (axes[0]) b.position.x -= rig.rest[i].x;
        if (axes[1]) b.position.y -= rig.rest[i].y;
        if (axes[2]) b.position.z -= rig.rest[i].z;
      }
    });
    rig.root.updateMatrixWorld(true);
    rig.bones.forEach((b, i) => {
      v.setFromMatrixPosition(b.matrixWorld).multiplyScalar(CM);
      const j = jointOf[i];
      let x: number, y: number, z: number;
      if (j >= 0) {
        const o = (f * J + j) * 3;
        x = wp[o]; y = wp[o + 1]; z = wp[o + 2];
      } else {
        const e = -1 - j, pj = skeleton.endSiteParents[e];
        quatRotateVec3(es, 0, wr, (f * J + pj) * 4, skeleton.endSiteOffsets, 3 * e);
        const o = (f * J + pj) * 3;
        x = wp[o] + es[0]; y = wp[o + 1] + es[1]; z = wp[o + 2] + es[2];
      }
      const d = Math.hypot(x - v.x, y - v.y, z - v.z);
      if (!(d <= worst)) worst = d; // NaN-propagating max
    });
  }
  return worst;
}

describe.skipIf(!hasMocap)('BVH import speed', () => {
  it('parses the 137-file bench set (27 MB) completely (its time is logged; speed is benchmarked, not asserted)', () => {
    const files = listBvhFiles([join(mocapDir, 'bench')]);
    const texts = files.map((f) => readFileSync(f, 'utf8'));
    // One pass: the time is only logged, for a reader of the run (speed is not asserted in tests).
    let frames = 0;
    const t0 = performance.now();
    texts.forEach((t, i) => { frames += parseBvh(t, { file: files[i] }).clip.frameCount; });
    const ms = performance.now() - t0;
    const mb = texts.reduce((n, t) => n + t.length, 0) / 1e6;
    console.log(`bvh parse speed: ${files.length} files, ${mb.toFixed(1)} MB, ${frames} frames in ${ms.toFixed(0)} ms (one pass)`);
    expect(frames).toBe(20464);
  });
});

describe.skipIf(!hasMocap)('BVH import vs three.js BVHLoader on every real mocap file', () => {
  for (const set of ['core', 'bench'] as const) {
    it(`${set}: all frames of all files agree within 1e-4 m (add vs three; replace vs three rebased)`, () => {
      const files = listBvhFiles([join(mocapDir, set)]);
      expect(files.length).toBe(set === 'core' ? 11 : 137);
      let frames = 0, worstAdd = 0, worstReplace = 0;
      for (const file of files) {
        const text = readFileSync(file, 'utf8');
        const rig = loadThree(text);
        const add = parseBvh(text, { file, scale: CM, translationMode: 'add' });
        const replace = parseBvh(text, { file, scale: CM });
        expect(add.clip.frameCount, basename(file)).toBe(rig.frames);
        const auto = parseBvh(text, { file });
        expect(auto.detectedUnit).toBe('cm');
        expectSameNumbers(auto.clip.translations, replace.clip.translations, `${basename(file)} translations`);
        const dAdd = compare(add, rig, 'add');
        const dRep = compare(replace, rig, 'replace');
        expect(dAdd, `${basename(file)} add`).toBeLessThanOrEqual(TOL_M);
        expect(dRep, `${basename(file)} replace`).toBeLessThanOrEqual(TOL_M);
        worstAdd = Math.max(worstAdd, dAdd);
        worstReplace = Math.max(worstReplace, dRep);
        frames += rig.frames;
      }
      console.log(`bvh-three-oracle ${set}: ${files.length} files, ${frames} frames; worst distance add ${worstAdd.toExponential(2)} m, replace ${worstReplace.toExponential(2)} m`);
    });
  }
});
