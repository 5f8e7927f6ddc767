import { describe, expect, it } from 'vitest';
import { createRandom as rng } from '../../src/util/prng.js';
import fc from 'fast-check';
import { existsSync } from 'node:fs';
import { dirname, join, resolve, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bone, Vector3, type KeyframeTrack } from 'three';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { writeBvh, quatToEulerOrder, EULER_ORDERS } from '../../src/import/bvh/write.js';
import type { EulerOrder } from '../../src/import/bvh/write.js';
import { parseBvh } from '../../src/import/bvh/bvh.js';
import { readBvhFile, listBvhFiles } from '../../src/import/bvh/bvh-node.js';
import type { Skeleton } from '../../src/anim/skeleton.js';
import type { Clip } from '../../src/anim/clip.js';
import { worldTransformsOfFrames } from '../../src/anim/pose.js';
import { quatFromEulerOrder, quatNormalize, quatRotateVec3 } from '../../src/math/quat.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const mocapDir = resolve(repoRoot, '../shared/data/mocap');
const hasMocap = existsSync(join(mocapDir, 'core'));
if (!hasMocap) console.log(`bvh-write: skipping the real-data round trips, mocap not found at ${mocapDir}`);

const DEG = Math.PI / 180;

/** World positions of joints then end sites, per frame: frames * (J + E) * 3. */
function worldPoints(s: Skeleton, c: Clip): Float64Array {
  const J = s.names.length, E = s.endSiteParents.length, F = c.frameCount;
  const wr = new Float64Array(F * J * 4), wp = new Float64Array(F * J * 3);
  worldTransformsOfFrames(s.parents, c.rotations, c.translations, F, wr, wp);
  const out = new Float64Array(F * (J + E) * 3);
  const t = new Float64Array(3);
  for (let f = 0; f < F; f++) {
    out.set(wp.subarray(f * J * 3, (f + 1) * J * 3), f * (J + E) * 3);
    for (let e = 0; e < E; e++) {
      const p = s.endSiteParents[e];
      quatRotateVec3(t, 0, wr, (f * J + p) * 4, s.endSiteOffsets, 3 * e);
      const o = (f * (J + E) + J + e) * 3;
      out[o] = wp[(f * J + p) * 3] + t[0]; out[o + 1] = wp[(f * J + p) * 3 + 1] + t[1]; out[o + 2] = wp[(f * J + p) * 3 + 2] + t[2];
    }
  }
  return out;
}

/**
 * Max distance between the world points of (a) and (b), matching joints by name and end sites by
 * (parent name, order among that parent's end sites).
 */
function maxWorldDistance(sa: Skeleton, ca: Clip, sb: Skeleton, cb: Clip, nameMap: (n: string) => string = (n) => n): number {
  const J = sa.names.length, E = sa.endSiteParents.length;
  expect(sb.names.length).toBe(J);
  expect(sb.endSiteParents.length).toBe(E);
  expect(cb.frameCount).toBe(ca.frameCount);
  const jmap = sa.names.map((n) => sb.names.indexOf(nameMap(n)));
  expect(jmap.every((j) => j >= 0)).toBe(true);
  const emap: number[] = [];
  for (let e = 0; e < E; e++) {
    const p = jmap[sa.endSiteParents[e]];
    const rank = [...sa.endSiteParents.subarray(0, e)].filter((q) => q === sa.endSiteParents[e]).length;
    const candidates = [...sb.endSiteParents.keys()].filter((i) => sb.endSiteParents[i] === p);
    emap.push(candidates[rank]);
  }
  const pa = worldPoints(sa, ca), pb = worldPoints(sb, cb);
  let worst = 0;
  for (let f = 0; f < ca.frameCount; f++) {
    for (let i = 0; i < J + E; i++) {
      const k = i < J ? jmap[i] : J + emap[i - J];
      const a = (f * (J + E) + i) * 3, b = (f * (J + E) + k) * 3;
      const d = Math.hypot(pa[a] - pb[b], pa[a + 1] - pb[b + 1], pa[a + 2] - pb[b + 2]);
      if (!(d <= worst)) worst = d;
    }
  }
  return worst;
}


/**
 * A synthetic skeleton stored parents-first but NOT depth-first (breadth-first), with end sites, a
 * name with spaces, and a clip with random rotations including exact and near gimbal-lock poses for
 * `order`, a moving root with a non-zero rest offset, and one stretchy non-root joint.
 */
function synthetic(order: EulerOrder, seed: number, frames = 40): { skeleton: Skeleton; clip: Clip } {
  const r = rng(seed);
  const names = ['Hips', 'Spine', 'LeftUpLeg', 'RightUpLeg', 'Chest', 'LeftLeg', 'RightLeg', 'Left Arm', 'Neck', 'LeftFoot', 'RightFoot'];
  const parents = Int32Array.from([-1, 0, 0, 0, 1, 2, 3, 4, 4, 5, 6]);
  const J = names.length;
  const offsets = new Float64Array(J * 3);
  offsets.set([0.05, 0.95, -0.02]);
  for (let j = 1; j < J; j++) for (let d = 0; d < 3; d++) offsets[3 * j + d] = (r() - 0.5) * 0.4;
  const endSiteParents = Int32Array.from([7, 8, 9, 10, 8]);
  const endSiteOffsets = Float64Array.from([0.2, 0, 0, 0, 0.15, 0, 0, -0.05, 0.12, 0, -0.05, 0.12, 0.01, 0.02, 0.03]);
  const rotations = new Float64Array(frames * J * 4);
  const translations = new Float64Array(frames * J * 3);
  const q = [0, 0, 0, 1];
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < J; j++) {
      const angles = [(r() * 2 - 1) * Math.PI, (r() - 0.5) * Math.PI, (r() * 2 - 1) * Math.PI];
      const kind = (f + j) % 5;
      if (kind === 1) angles[1] = Math.PI / 2; // exact gimbal lock for `order`
      if (kind === 2) angles[1] = -Math.PI / 2;
      if (kind === 3) angles[1] = Math.PI / 2 - 1e-7 * r(); // near gimbal lock
      quatFromEulerOrder(q, 0, angles, order);
      if (kind === 4) { q[0] = r() - 0.5; q[1] = r() - 0.5; q[2] = r() - 0.5; q[3] = r() - 0.5; quatNormalize(q, 0, q, 0); }
      rotations.set(q, (f * J + j) * 4);
      translations.set(offsets.subarray(3 * j, 3 * j + 3), (f * J + j) * 3);
    }
    translations.set([Math.sin(f * 0.1) * 2, 0.9 + 0.05 * Math.cos(f * 0.3), f * 0.04 - 3], f * J * 3);
    translations[(f * J + 4) * 3 + 1] += 0.03 * Math.sin(f); // stretchy Chest
  }
  const skeleton: Skeleton = { names, parents, offsets, endSiteParents, endSiteOffsets };
  const clip: Clip = { name: 'synthetic', source: 'test', fps: 60, frameCount: frames, rotations, translations, loop: false, tags: [] };
  return { skeleton, clip };
}

describe('quatToEulerOrder', () => {
  const rotationClose = (a: number[], b: number[]): number => 1 - Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);

  it('recomposes to the same rotation for every order (random quaternions)', () => {
    const unit = fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }))
      .filter(([x, y, z, w]) => x * x + y * y + z * z + w * w > 1e-6);
    fc.assert(fc.property(unit, fc.constantFrom(...EULER_ORDERS), (v, order) => {
      const q = [...v];
      quatNormalize(q, 0, q, 0);
      const e = [0, 0, 0];
      quatToEulerOrder(e, 0, q, 0, order);
      expect(Math.abs(e[1])).toBeLessThanOrEqual(Math.PI / 2 + 1e-12);
      const back = [0, 0, 0, 1];
      quatFromEulerOrder(back, 0, e, order);
      expect(rotationClose(q, back)).toBeLessThan(1e-13);
    }), { numRuns: 3000 });
  });

  it('handles exact and near gimbal lock', () => {
    for (const order of EULER_ORDERS) {
      for (const mid of [90, -90, 90 - 1e-6, -90 + 1e-6, 90 - 1e-9, 89.9999, 0, 180]) {
        for (const [a, c] of [[0, 0], [30, 40], [-170, 95], [180, -180], [12.5, -77]]) {
          const q = [0, 0, 0, 1];
          quatFromEulerOrder(q, 0, [a * DEG, mid * DEG, c * DEG], order);
          const e = [0, 0, 0];
          quatToEulerOrder(e, 0, q, 0, order);
          const back = [0, 0, 0, 1];
          quatFromEulerOrder(back, 0, e, order);
          expect(rotationClose(q, back), `${order} ${a} ${mid} ${c}`).toBeLessThan(1e-13);
          for (const v of e) expect(Number.isFinite(v)).toBe(true);
        }
      }
    }
  });
});

describe('writeBvh', () => {
  it('writes a standard header: root OFFSET 0 with 6 channels, 3 channels elsewhere unless translation varies, end sites', () => {
    const { skeleton, clip } = synthetic('ZXY', 1, 3);
    const text = writeBvh(skeleton, clip);
    const lines = text.split('\n');
    expect(lines[0]).toBe('HIERARCHY');
    expect(lines[1]).toBe('ROOT Hips');
    expect(lines[3].trim()).toBe('OFFSET 0 0 0');
    expect(lines[4].trim()).toBe('CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation');
    expect(text).toContain('JOINT Left_Arm');
    expect(text.match(/CHANNELS 6/g)!.length).toBe(2); // root + the stretchy Chest
    expect(text.match(/CHANNELS 3 Zrotation Xrotation Yrotation/g)!.length).toBe(9);
    expect(text.match(/End Site/g)!.length).toBe(5);
    expect(text).toMatch(/\nMOTION\nFrames: 3\nFrame Time: 0\.016666666666666666\n/);
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toMatch(/(^|\s)-0(\s|$)/);
    expect(text).not.toMatch(/\.\d*0(\s|$)/); // trailing zeros trimmed
    const frameLine = lines[lines.length - 2].split(' ');
    expect(frameLine.length).toBe(6 + 6 + 9 * 3);
  });

  it('round trip: writeBvh then parseBvh gives the same world positions within 1e-5 m (every order, gimbal poses)', () => {
    for (const order of EULER_ORDERS) {
      for (const seed of [1, 2, 3]) {
        const { skeleton, clip } = synthetic(order, seed);
        const text = writeBvh(skeleton, clip, { order });
        const back = parseBvh(text, { file: 'rt.bvh', scale: 0.01 });
        expect(back.channels[0].rotationOrder).toBe(order);
        // depth-first re-ordering: same names, different indices
        expect(back.skeleton.names).toEqual(['Hips', 'Spine', 'Chest', 'Left_Arm', 'Neck', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'RightUpLeg', 'RightLeg', 'RightFoot']);
        const d = maxWorldDistance(skeleton, clip, back.skeleton, back.clip, (n) => n.replace(' ', '_'));
        expect(d, `${order} seed ${seed}`).toBeLessThan(1e-5);
        expect(back.clip.fps).toBeCloseTo(60, 9);
      }
    }
  });

  it('round trip in other units and precisions', () => {
    const { skeleton, clip } = synthetic('YXZ', 7);
    for (const [unitScale, precision, tol] of [[1, 8, 1e-5], [1000, 4, 1e-5], [1 / 0.0254, 7, 1e-5], [100, 3, 1e-3]] as const) {
      const back = parseBvh(writeBvh(skeleton, clip, { order: 'YXZ', unitScale, precision }), { scale: 1 / unitScale });
      expect(maxWorldDistance(skeleton, clip, back.skeleton, back.clip, (n) => n.replace(' ', '_'))).toBeLessThan(tol);
    }
  });

  it('three.js BVHLoader reads the output with the same world positions (root-only translation)', () => {
    const { skeleton, clip } = synthetic('ZXY', 11);
    // no stretchy joint: position channels on the root only, so three's additive convention agrees
    for (let f = 0; f < clip.frameCount; f++) clip.translations.set(skeleton.offsets.subarray(12, 15), (f * 11 + 4) * 3);
    for (const order of EULER_ORDERS) {
      const text = writeBvh(skeleton, clip, { order });
      expect(text.match(/CHANNELS 6/g)!.length).toBe(1);
      const ours = parseBvh(text, { scale: 0.01 });
      expect(threeDistance(text, ours, false)).toBeLessThan(1e-5);
    }
  });

  it('validates its options and inputs', () => {
    const { skeleton, clip } = synthetic('ZXY', 1, 2);
    expect(() => writeBvh(skeleton, clip, { order: 'XXY' as EulerOrder })).toThrow(/order must be one of/);
    expect(() => writeBvh(skeleton, clip, { unitScale: 0 })).toThrow(/unitScale/);
    expect(() => writeBvh(skeleton, clip, { precision: 2.5 })).toThrow(/precision/);
    expect(() => writeBvh(skeleton, { ...clip, frameCount: 0, rotations: new Float64Array(0), translations: new Float64Array(0) })).toThrow(/at least one/);
    expect(() => writeBvh(skeleton, { ...clip, frameCount: 3 })).toThrow(/do not match/);
    expect(() => writeBvh({ ...skeleton, names: skeleton.names.map((n, i) => (i === 8 ? 'Left_Arm' : n)) }, clip)).toThrow(/same BVH name 'Left_Arm'/);
  });
});

/** Max distance (m) between our parse of `text` and three's BVHLoader (optionally rebasing position keys, see the oracle test). */
function threeDistance(text: string, ours: ReturnType<typeof parseBvh>, rebase: boolean): number {
  const { skeleton: tSkel, clip: tClip } = new BVHLoader().parse(text);
  const tracks = new Map<string, KeyframeTrack>(tClip.tracks.map((t) => [t.name, t]));
  const bones = tSkel.bones;
  const rest = bones.map((b) => b.position.clone());
  const { skeleton, clip, channels } = ours;
  const J = skeleton.names.length;
  const wr = new Float64Array(clip.frameCount * J * 4), wp = new Float64Array(clip.frameCount * J * 3);
  worldTransformsOfFrames(skeleton.parents, clip.rotations, clip.translations, clip.frameCount, wr, wp);
  let worst = 0;
  const v = new Vector3();
  const t = new Float64Array(3);
  for (let f = 0; f < clip.frameCount; f++) {
    bones.forEach((b, i) => {
      if (b.name === 'ENDSITE') return;
      b.position.fromArray(tracks.get(`${b.name}.position`)!.values, 3 * f);
      b.quaternion.fromArray(tracks.get(`${b.name}.quaternion`)!.values, 4 * f);
      if (rebase && channels[skeleton.names.indexOf(b.name)].hasPosition) b.position.sub(rest[i]);
    });
    bones[0].updateMatrixWorld(true);
    let e = 0;
    for (const b of bones) {
      v.setFromMatrixPosition(b.matrixWorld).multiplyScalar(0.01);
      let x: number, y: number, z: number;
      if (b.name === 'ENDSITE') {
        const p = skeleton.endSiteParents[e];
        expect(skeleton.names[p]).toBe((b.parent as Bone).name);
        quatRotateVec3(t, 0, wr, (f * J + p) * 4, skeleton.endSiteOffsets, 3 * e++);
        x = wp[(f * J + p) * 3] + t[0]; y = wp[(f * J + p) * 3 + 1] + t[1]; z = wp[(f * J + p) * 3 + 2] + t[2];
      } else {
        const j = skeleton.names.indexOf(b.name);
        x = wp[(f * J + j) * 3]; y = wp[(f * J + j) * 3 + 1]; z = wp[(f * J + j) * 3 + 2];
      }
      const d = Math.hypot(x - v.x, y - v.y, z - v.z);
      if (!(d <= worst)) worst = d;
    }
  }
  return worst;
}

describe.skipIf(!hasMocap)('writeBvh on the real mocap (core)', () => {
  it('every core file, every order: parse -> write -> parse keeps world positions within 1e-5 m; three reads it back', () => {
    for (const file of listBvhFiles([join(mocapDir, 'core')])) {
      const a = readBvhFile(file);
      for (const order of EULER_ORDERS) {
        const text = writeBvh(a.skeleton, a.clip, { order });
        const b = parseBvh(text, { file: 'written.bvh' });
        expect(b.detectedUnit).toBe('cm');
        expect(b.clip.frameCount).toBe(a.clip.frameCount);
        expect(maxWorldDistance(a.skeleton, a.clip, b.skeleton, b.clip), `${basename(file)} ${order}`).toBeLessThan(1e-5);
        if (order === 'ZXY' || order === 'XYZ') {
          // non-root joints carry position channels here (their translation differs from OFFSET
          // by a few 1e-8 m in the source), so three's additive keys are rebased.
          expect(threeDistance(text, b, true), `three ${basename(file)} ${order}`).toBeLessThan(1e-5);
        }
      }
    }
  });
});
