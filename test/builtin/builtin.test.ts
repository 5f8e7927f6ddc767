import { describe, it, expect, beforeAll } from 'vitest';
import {
  generateBuiltinClips, selectBuiltinSpecs, builtinClipSpecs, renderBuiltinClip, createBuiltinSkeleton,
  type BuiltinData, type BuiltinClipSpec,
} from '../../src/builtin/generate.js';
import { validateSkeleton, type Skeleton } from '../../src/anim/skeleton.js';
import type { Clip } from '../../src/anim/clip.js';
import { worldTransformsOfFrames, finiteDifferenceVelocities } from '../../src/anim/pose.js';
import { quatRotateVec3 } from '../../src/math/quat.js';
import { findBoneRoles } from '../../src/features/roles.js';

const DEG = 180 / Math.PI;

interface World {
  rot: Float64Array;
  pos: Float64Array;
  vel: Float64Array;
}

let data: BuiltinData;
let specs: BuiltinClipSpec[];
let world: World[];
let generationMs = 0;
let J = 0;

function worldOf(sk: Skeleton, clip: Clip): World {
  const n = sk.names.length, F = clip.frameCount;
  const rot = new Float64Array(F * n * 4), pos = new Float64Array(F * n * 3), vel = new Float64Array(F * n * 3);
  worldTransformsOfFrames(sk.parents, clip.rotations, clip.translations, F, rot, pos);
  finiteDifferenceVelocities(pos, n * 3, F, clip.fps, vel);
  return { rot, pos, vel };
}

function joint(name: string): number {
  const j = data.skeleton.names.indexOf(name);
  if (j < 0) throw new Error(`no joint ${name}`);
  return j;
}

/** Unwrapped yaw of the pelvis' forward axis (+Z) per frame. */
function pelvisYaw(w: World, F: number): Float64Array {
  const out = new Float64Array(F);
  const v = [0, 0, 0];
  let prev = 0;
  for (let f = 0; f < F; f++) {
    quatRotateVec3(v, 0, w.rot, f * J * 4, [0, 0, 1], 0);
    let y = Math.atan2(v[0], v[2]);
    if (f > 0) y = prev + Math.atan2(Math.sin(y - prev), Math.cos(y - prev));
    out[f] = y;
    prev = y;
  }
  return out;
}

function isStraight(s: BuiltinClipSpec): boolean {
  const m = s.motion;
  return s.speed !== undefined && m.speed.length === 1 && m.travel.length === 1 && m.yawRate.every((k) => k.v === 0) && m.stepStart === undefined && m.stepStop === undefined;
}

beforeAll(() => {
  const t0 = performance.now();
  data = generateBuiltinClips();
  generationMs = performance.now() - t0;
  specs = selectBuiltinSpecs();
  J = data.skeleton.names.length;
  world = data.clips.map((c) => worldOf(data.skeleton, c));
});

describe('built-in skeleton', () => {
  it('validates, has 22 joints and one root with its own naming convention', () => {
    const s = createBuiltinSkeleton();
    validateSkeleton(s);
    expect(s.names.length).toBe(22);
    expect(Array.from(s.parents).filter((p) => p < 0)).toEqual([-1]);
    expect(s.names[0]).toBe('pelvis');
    for (const n of ['pelvis', 'spine_01', 'neck', 'head', 'thigh_l', 'calf_l', 'foot_l', 'toe_l', 'foot_r', 'toe_r', 'hand_l', 'hand_r']) expect(s.names).toContain(n);
    for (const n of ['Hips', 'Foot_L', 'Toes_L', 'UpperLeg_L']) expect(s.names).not.toContain(n);
    expect(s.endSiteParents.length).toBe(5);
  });

  it('is about 1.75 m tall, hips at about 0.95 m, feet on the ground, in its rest pose', () => {
    const s = createBuiltinSkeleton();
    const n = s.names.length;
    const rot = new Float64Array(4 * n);
    for (let j = 0; j < n; j++) rot[4 * j + 3] = 1;
    const pos = new Float64Array(3 * n);
    worldTransformsOfFrames(s.parents, rot, s.offsets, 1, new Float64Array(4 * n), pos);
    const head = s.names.indexOf('head');
    const e = Array.from(s.endSiteParents).indexOf(head);
    const top = pos[3 * head + 1] + s.endSiteOffsets[3 * e + 1];
    expect(top).toBeGreaterThan(1.7);
    expect(top).toBeLessThan(1.8);
    expect(pos[3 * s.names.indexOf('thigh_l') + 1]).toBeCloseTo(0.95, 2);
    expect(pos[3 * s.names.indexOf('foot_l') + 1]).toBeCloseTo(0.08, 6);
    for (let k = 0; k < s.endSiteParents.length; k++) {
      expect(pos[3 * s.endSiteParents[k] + 1] + s.endSiteOffsets[3 * k + 1]).toBeGreaterThan(0);
    }
  });

  it('is left/right symmetric (mirror partners by name, x negated)', () => {
    const s = createBuiltinSkeleton();
    for (let j = 0; j < s.names.length; j++) {
      const name = s.names[j];
      const m = s.names.indexOf(name.replace(/_l$/, '_R').replace(/_r$/, '_l').replace(/_R$/, '_r'));
      expect(m).toBeGreaterThanOrEqual(0);
      expect(s.offsets[3 * m]).toBeCloseTo(-s.offsets[3 * j], 12);
      expect(s.offsets[3 * m + 1]).toBeCloseTo(s.offsets[3 * j + 1], 12);
      expect(s.offsets[3 * m + 2]).toBeCloseTo(s.offsets[3 * j + 2], 12);
    }
  });

  it('resolves hips, feet and toes by name', () => {
    const s = createBuiltinSkeleton();
    const roles = findBoneRoles(s);
    expect(s.names[roles.hips]).toBe('pelvis');
    expect(s.names[roles.leftFoot]).toBe('foot_l');
    expect(s.names[roles.rightFoot]).toBe('foot_r');
    expect(s.names[roles.leftToe]).toBe('toe_l');
    expect(s.names[roles.rightToe]).toBe('toe_r');
  });
});

describe('built-in clips', () => {
  it('are generated fast, in a sensible amount', () => {
    const frames = data.clips.reduce((a, c) => a + c.frameCount, 0);
    expect(frames).toBeGreaterThan(5000);
    expect(frames).toBeLessThan(15000);
    console.log(`builtin: ${data.clips.length} clips, ${frames} frames, generated in ${generationMs.toFixed(0)} ms`);
  });

  it('are deterministic: identical arrays on every run', () => {
    const again = generateBuiltinClips();
    expect(again.clips.length).toBe(data.clips.length);
    for (let c = 0; c < data.clips.length; c++) {
      const a = data.clips[c], b = again.clips[c];
      expect(b.name).toBe(a.name);
      expect(Buffer.from(b.rotations.buffer).equals(Buffer.from(a.rotations.buffer))).toBe(true);
      expect(Buffer.from(b.translations.buffer).equals(Buffer.from(a.translations.buffer))).toBe(true);
      expect(Buffer.from(again.contacts[c]).equals(Buffer.from(data.contacts[c]))).toBe(true);
    }
    expect(Buffer.from(again.skeleton.offsets.buffer).equals(Buffer.from(data.skeleton.offsets.buffer))).toBe(true);
  });

  it('never need the IK to clamp a planted leg (every footprint is within reach)', () => {
    const sk = createBuiltinSkeleton();
    for (let c = 0; c < specs.length; c++) {
      const r = renderBuiltinClip(sk, specs[c], 30);
      expect(r.maxPlantedResidual, specs[c].name).toBeLessThan(1e-9);
      expect(Buffer.from(r.clip.rotations.buffer).equals(Buffer.from(data.clips[c].rotations.buffer))).toBe(true);
    }
  });

  it('cover the promised kinds of motion, with names, tags and source', () => {
    const names = data.clips.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of [
      'idle', 'walk_0.8', 'walk_1.2', 'walk_1.6', 'jog_2.2', 'jog_2.8', 'run_3.5', 'run_4.5',
      'walk_turn_left_45', 'walk_turn_right_90', 'walk_turn_left_180', 'run_turn_left_90', 'run_turn_right_45', 'run_turn_right_180',
      'walk_uturn_left', 'run_uturn_right', 'walk_cut_left_90', 'run_cut_right_90',
      'strafe_left_1.0', 'strafe_right_1.0', 'strafe_forward_left_1.2', 'strafe_backward_right_1.0', 'walk_backward_1.0',
      'start_walk', 'start_run', 'stop_walk', 'stop_run', 'turn_in_place_left_90', 'walk_to_run', 'run_to_walk', 'speed_changes',
    ]) expect(names).toContain(n);
    for (const c of data.clips) {
      expect(c.source).toBe('builtin');
      expect(c.fps).toBe(30);
      expect(c.loop).toBe(false);
      expect(c.tags.length).toBeGreaterThan(0);
    }
    const tags = (n: string): string[] => data.clips.find((c) => c.name === n)!.tags;
    expect(tags('walk_1.2')).toEqual(['walk']);
    expect(tags('idle')).toEqual(['idle']);
    expect(tags('run_turn_left_90')).toEqual(['run', 'turn']);
    expect(tags('strafe_left_1.0')).toContain('strafe');
    expect(tags('start_walk')).toContain('start');
    expect(tags('stop_run')).toContain('stop');
  });

  it('have consistent array sizes, finite unit quaternions and rest offsets below the pelvis', () => {
    for (let c = 0; c < data.clips.length; c++) {
      const clip = data.clips[c];
      const F = clip.frameCount;
      expect(clip.rotations.length).toBe(F * J * 4);
      expect(clip.translations.length).toBe(F * J * 3);
      expect(data.contacts[c].length).toBe(F);
      for (let i = 0; i < F * J; i++) {
        const o = 4 * i;
        const x = clip.rotations[o], y = clip.rotations[o + 1], z = clip.rotations[o + 2], w = clip.rotations[o + 3];
        const n = Math.sqrt(x * x + y * y + z * z + w * w);
        if (!(Math.abs(n - 1) < 1e-9)) throw new Error(`${clip.name}: quaternion ${i} has norm ${n}`);
      }
      for (let f = 0; f < F; f++) {
        for (let k = 0; k < 3; k++) expect(Number.isFinite(clip.translations[f * J * 3 + k])).toBe(true);
        for (let j = 1; j < J; j++) {
          for (let k = 0; k < 3; k++) {
            if (clip.translations[(f * J + j) * 3 + k] !== data.skeleton.offsets[3 * j + k]) throw new Error(`${clip.name}: joint ${j} translation differs from its rest offset`);
          }
        }
      }
    }
  });

  it('keep every bone length constant', () => {
    for (let c = 0; c < data.clips.length; c++) {
      const { pos } = world[c];
      for (let f = 0; f < data.clips[c].frameCount; f++) {
        for (let j = 1; j < J; j++) {
          const p = data.skeleton.parents[j];
          const o = data.skeleton.offsets;
          const d = Math.hypot(pos[(f * J + j) * 3] - pos[(f * J + p) * 3], pos[(f * J + j) * 3 + 1] - pos[(f * J + p) * 3 + 1], pos[(f * J + j) * 3 + 2] - pos[(f * J + p) * 3 + 2]);
          if (!(Math.abs(d - Math.hypot(o[3 * j], o[3 * j + 1], o[3 * j + 2])) < 1e-9)) throw new Error(`${data.clips[c].name} frame ${f}: bone ${j} length ${d}`);
        }
      }
    }
  });

  it('move at the speed and in the direction their names promise', () => {
    let checked = 0;
    for (let c = 0; c < data.clips.length; c++) {
      const spec = specs[c];
      if (!isStraight(spec)) continue;
      const clip = data.clips[c], { pos } = world[c];
      const a = clip.fps, b = clip.frameCount - 1 - clip.fps; // skip the first and last second
      const dx = pos[b * J * 3] - pos[a * J * 3], dz = pos[b * J * 3 + 2] - pos[a * J * 3 + 2];
      const speed = Math.hypot(dx, dz) / ((b - a) / clip.fps);
      expect(Math.abs(speed - spec.speed!) / spec.speed!, clip.name).toBeLessThan(0.1);
      // The clips start facing +Z: the travel angle is measured from +Z towards +X (left).
      const travel = spec.motion.travel[0].v;
      const err = Math.atan2(Math.sin(Math.atan2(dx, dz) - travel), Math.cos(Math.atan2(dx, dz) - travel));
      expect(Math.abs(err) * DEG, clip.name).toBeLessThan(5);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(14);
  });

  it('turn by the expected amount', () => {
    let checked = 0;
    for (let c = 0; c < data.clips.length; c++) {
      const spec = specs[c];
      if (spec.expectedTurn === undefined) continue;
      const F = data.clips[c].frameCount;
      const yaw = pelvisYaw(world[c], F);
      // Average over 0.5 s at both ends, where the clips go straight, to cancel the pelvis' sway.
      const n = Math.round(0.5 * data.clips[c].fps);
      let y0 = 0, y1 = 0;
      for (let k = 0; k < n; k++) { y0 += yaw[k] / n; y1 += yaw[F - 1 - k] / n; }
      const turned = y1 - y0;
      const tol = Math.max(10 / DEG, 0.06 * Math.abs(spec.expectedTurn));
      expect(Math.abs(turned - spec.expectedTurn), `${spec.name}: turned ${(turned * DEG).toFixed(1)} deg, expected ${(spec.expectedTurn * DEG).toFixed(1)}`).toBeLessThan(tol);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(20);
  });

  it('pivot: the body turns by the declared amount while the path keeps its direction', () => {
    let checked = 0;
    for (let c = 0; c < data.clips.length; c++) {
      const spec = specs[c];
      if (spec.pivotTurn === undefined) continue;
      const F = data.clips[c].frameCount, n = Math.round(0.4 * data.clips[c].fps), p = world[c].pos;
      const yaw = pelvisYaw(world[c], F);
      let y0 = 0, y1 = 0;
      for (let k = 0; k < n; k++) { y0 += yaw[k] / n; y1 += yaw[F - 1 - k] / n; }
      // The pelvis also turns towards a sideways travel (by less than a fifth of the travel's change).
      const turned = y1 - y0, ratio = turned / spec.pivotTurn;
      expect(ratio, `${spec.name}: turned ${(turned * DEG).toFixed(1)} deg of ${(spec.pivotTurn * DEG).toFixed(1)}`).toBeGreaterThan(0.75);
      expect(ratio, spec.name).toBeLessThan(1.25);
      // The pelvis' path over the first and the last n frames: the same direction within 12 degrees.
      const dir = (a: number, b: number) => Math.atan2(p[(b * J) * 3] - p[(a * J) * 3], p[(b * J) * 3 + 2] - p[(a * J) * 3 + 2]);
      const d0 = dir(0, n), d1 = dir(F - 1 - n, F - 1);
      expect(Math.abs(Math.atan2(Math.sin(d1 - d0), Math.cos(d1 - d0))) * DEG, `${spec.name}: path turned`).toBeLessThan(12);
      checked++;
    }
    expect(checked).toBe(32);
  });

  it('do not slide planted feet: foot joint horizontal speed < 1 cm/s (mean and max) during contact labels', () => {
    const feet = [joint('foot_l'), joint('foot_r')];
    for (let c = 0; c < data.clips.length; c++) {
      const { vel, pos } = world[c];
      const con = data.contacts[c];
      const F = data.clips[c].frameCount;
      let sum = 0, n = 0, max = 0;
      for (let f = 0; f < F; f++) {
        for (let s = 0; s < 2; s++) {
          if (!(con[f] & (s === 0 ? 1 : 2))) continue;
          const o = (f * J + feet[s]) * 3;
          const v = Math.hypot(vel[o], vel[o + 2]); // central differences, as the database computes them
          sum += v; n++; max = Math.max(max, v);
          // Between two planted frames the foot joint does not move at all.
          if (f + 1 < F && con[f + 1] & (s === 0 ? 1 : 2)) {
            const o1 = ((f + 1) * J + feet[s]) * 3;
            expect(Math.hypot(pos[o1] - pos[o], pos[o1 + 1] - pos[o + 1], pos[o1 + 2] - pos[o + 2])).toBeLessThan(1e-6);
          }
        }
      }
      expect(n, data.clips[c].name).toBeGreaterThan(0);
      expect(sum / n, `${data.clips[c].name} mean skate`).toBeLessThan(0.01);
      expect(max, `${data.clips[c].name} max skate`).toBeLessThan(0.01);
    }
  });

  it('keep feet and toes above the ground (1 mm tolerance)', () => {
    const ids = [joint('foot_l'), joint('foot_r'), joint('toe_l'), joint('toe_r')];
    const sk = data.skeleton;
    const tips = Array.from(sk.endSiteParents).map((p, e) => ({ p, e })).filter(({ p }) => p === joint('toe_l') || p === joint('toe_r'));
    const v = [0, 0, 0];
    for (let c = 0; c < data.clips.length; c++) {
      const { pos, rot } = world[c];
      let min = Infinity;
      for (let f = 0; f < data.clips[c].frameCount; f++) {
        for (const j of ids) min = Math.min(min, pos[(f * J + j) * 3 + 1]);
        for (const { p, e } of tips) {
          quatRotateVec3(v, 0, rot, (f * J + p) * 4, sk.endSiteOffsets, 3 * e);
          min = Math.min(min, pos[(f * J + p) * 3 + 1] + v[1]);
        }
      }
      expect(min, data.clips[c].name).toBeGreaterThan(-0.001);
    }
  });

  it('alternate left and right contacts; walks have double support, runs have flight', () => {
    let walks = 0, runs = 0;
    for (let c = 0; c < data.clips.length; c++) {
      const clip = data.clips[c], con = data.contacts[c], spec = specs[c];
      if (!isStraight(spec) && !clip.tags.includes('turn')) continue;
      if (clip.tags.includes('idle')) continue;
      // Contact starts (rising edges) must alternate feet.
      const starts: number[] = [];
      for (let f = 1; f < clip.frameCount; f++) {
        for (const bit of [1, 2]) if ((con[f] & bit) && !(con[f - 1] & bit)) starts.push(bit);
      }
      expect(starts.length, clip.name).toBeGreaterThanOrEqual(4);
      for (let k = 1; k < starts.length; k++) expect(starts[k], `${clip.name} onset ${k}`).not.toBe(starts[k - 1]);
      let both = 0, none = 0;
      for (let f = 0; f < clip.frameCount; f++) { if (con[f] === 3) both++; if (con[f] === 0) none++; }
      const runLike = clip.tags.includes('run') || clip.tags.includes('jog');
      if (runLike && isStraight(spec)) {
        expect(none, `${clip.name} flight frames`).toBeGreaterThan(0.15 * clip.frameCount);
        expect(both, `${clip.name} double support`).toBe(0);
        runs++;
      } else if (!runLike) {
        expect(both, `${clip.name} double support`).toBeGreaterThan(0);
        expect(none, `${clip.name} flight frames`).toBe(0);
        walks++;
      }
    }
    expect(walks).toBeGreaterThanOrEqual(10);
    expect(runs).toBeGreaterThanOrEqual(4);
  });

  it('idle stands still; starts begin at rest and stops end at rest, feet planted', () => {
    const pelvisSpeed = (c: number, f0: number, f1: number): number => {
      const { pos } = world[c];
      return Math.hypot(pos[f1 * J * 3] - pos[f0 * J * 3], pos[f1 * J * 3 + 2] - pos[f0 * J * 3 + 2]) / ((f1 - f0) / data.clips[c].fps);
    };
    const idx = (n: string): number => data.clips.findIndex((c) => c.name === n);
    const idle = idx('idle');
    expect(data.contacts[idle].every((b) => b === 3)).toBe(true);
    expect(pelvisSpeed(idle, 0, data.clips[idle].frameCount - 1)).toBeLessThan(0.02);
    for (const n of ['start_walk', 'start_run']) {
      const c = idx(n), con = data.contacts[c], F = data.clips[c].frameCount;
      for (let f = 0; f < 25; f++) expect(con[f], `${n} frame ${f}`).toBe(3);
      expect(pelvisSpeed(c, 0, 25)).toBeLessThan(0.05);
      expect(Math.abs(pelvisSpeed(c, F - 31, F - 1) - specs[c].speed!) / specs[c].speed!).toBeLessThan(0.1);
    }
    for (const n of ['stop_walk', 'stop_run']) {
      const c = idx(n), con = data.contacts[c], F = data.clips[c].frameCount;
      for (let f = F - 15; f < F; f++) expect(con[f], `${n} frame ${f}`).toBe(3);
      expect(pelvisSpeed(c, F - 16, F - 1)).toBeLessThan(0.05);
      expect(Math.abs(pelvisSpeed(c, 0, 30) - specs[c].speed!) / specs[c].speed!).toBeLessThan(0.1);
    }
  });

  it('mirrorSafe leaves out exactly the right-hand twins', () => {
    const all = builtinClipSpecs().map((s) => s.name);
    const safe = selectBuiltinSpecs({ mirrorSafe: true }).map((s) => s.name);
    const dropped = all.filter((n) => !safe.includes(n));
    expect(dropped.length).toBeGreaterThan(10);
    for (const n of dropped) {
      expect(n).toMatch(/right/);
      expect(safe).toContain(n.replace('right', 'left'));
    }
    expect(safe.some((n) => n.includes('right'))).toBe(false);
  });

  it('keep their guarantees at other frame rates', () => {
    const sk = createBuiltinSkeleton();
    for (const fps of [24, 60]) {
      for (const name of ['walk_1.2', 'run_4.5', 'stop_run']) {
        const spec = builtinClipSpecs().find((s) => s.name === name)!;
        const { clip, contacts } = renderBuiltinClip(sk, spec, fps);
        expect(clip.fps).toBe(fps);
        expect(clip.frameCount).toBe(Math.round(spec.motion.duration * fps) + 1);
        const w = worldOf(sk, clip);
        const feet = [sk.names.indexOf('foot_l'), sk.names.indexOf('foot_r')];
        let max = 0;
        for (let f = 0; f < clip.frameCount; f++) {
          for (let s = 0; s < 2; s++) {
            if (!(contacts[f] & (s === 0 ? 1 : 2))) continue;
            const o = (f * J + feet[s]) * 3;
            max = Math.max(max, Math.hypot(w.vel[o], w.vel[o + 2]));
          }
        }
        expect(max, `${name} @ ${fps} fps`).toBeLessThan(0.01);
      }
    }
  });
});
