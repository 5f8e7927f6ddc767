/**
 * Frames a body cannot make, as raw takes hold them (the build's captureFaults): a calibration pose at
 * a take's ends (calibration-frames.ts), a jump of place (place-jumps.ts), a glitch (glitch-frames.ts),
 * a take on another floor (floor.ts) — each found and fixed, and nothing else touched.
 */
import { describe, it, expect } from 'vitest';
import { calibrationRange, CALIBRATION_STEP_RATIO } from '../../src/database/calibration-frames.js';
import { placeJumps } from '../../src/database/place-jumps.js';
import type { FloorMove, PlaceJump } from '../../src/database/build.js';
import { clipFloorShifts } from '../../src/database/floor.js';
import type { GlitchRepair } from '../../src/database/glitch-frames.js';
import { buildDatabase, type SourceMotion } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/builtin-sources.js';
import type { CalibrationTrim } from '../../src/database/calibration-frames.js';
import { withTPoseInFront } from '../helpers/calibration-pose.js';
import { sameBits } from '../../src/util/same-bits.js';

/** Steps of a clip moving a joint `base` m a frame (varying a little), with `jumps` put in at their indices. */
function steps(n: number, base: number, jumps: Record<number, number> = {}): Float64Array {
  const s = Float64Array.from({ length: n }, (_, f) => base * (1 + 0.2 * Math.sin(f)));
  for (const [f, v] of Object.entries(jumps)) s[Number(f)] = v;
  return s;
}

describe('calibrationRange: which frames are motion', () => {
  const fps = 30, leg = 0.9;
  it('leaves out a pose in front of the motion, or behind it', () => {
    expect(calibrationRange(steps(100, 0.05, { 0: 0.8 }), fps, leg)).toMatchObject({ first: 1, end: 101 });
    expect(calibrationRange(steps(100, 0.05, { 3: 0.8 }), fps, leg)).toMatchObject({ first: 4, end: 101 }); // held 4 frames
    expect(calibrationRange(steps(100, 0.05, { 99: 0.8 }), fps, leg)).toMatchObject({ first: 0, end: 100 });
    expect(calibrationRange(steps(100, 0.05, { 0: 0.8, 99: 0.7 }), fps, leg)).toMatchObject({ first: 1, end: 100 }); // both ends
  });
  it('keeps a jump in the middle, a motion fast all along, a peak with neighbours, a still take', () => {
    expect(calibrationRange(steps(100, 0.05, { 50: 0.8 }), fps, leg)).toMatchObject({ first: 0, end: 101 });
    expect(calibrationRange(steps(100, 0.3), fps, leg)).toMatchObject({ first: 0, end: 101 }); // a sprint's limbs at 30 fps
    expect(calibrationRange(steps(100, 0.05, { 0: 0.3, 1: 0.29, 2: 0.2 }), fps, leg)).toMatchObject({ first: 0, end: 101 });
    expect(calibrationRange(steps(100, 0.001, { 0: 0.01 }), fps, leg)).toMatchObject({ first: 0, end: 101 }); // 10x, but 1 cm
    expect(calibrationRange(steps(100, 0.05, { 3: 0.8, 4: 0.8 }), fps, leg)).toMatchObject({ first: 0, end: 101 }); // a glitch's way out and back
    // Just under the ratio: kept.
    expect(calibrationRange(steps(100, 0.1, { 0: 0.99 * CALIBRATION_STEP_RATIO * 0.12 }), fps, leg).first).toBe(0);
  });
});

describe('a build from takes that begin with a T-pose', () => {
  const sources = builtinSources().slice(0, 6);
  const s0 = sources[0].skeleton, N = s0.names;
  const j = (name: string): number => { const i = N.indexOf(name); if (i < 0) throw new Error(`no ${name}`); return i; };
  const arms = [
    { upper: j('upperarm_l'), lower: j('lowerarm_l'), hand: j('hand_l') },
    { upper: j('upperarm_r'), lower: j('lowerarm_r'), hand: j('hand_r') },
  ] as const;
  const posed: SourceMotion[] = sources.map((s) => ({ ...s, clip: withTPoseInFront(s.skeleton, s.clip, arms, j('thigh_l'), j('thigh_r')) }));

  it('leaves the pose out: the database is the one of the takes without it, bit for bit, and says what it left out', () => {
    let trims: CalibrationTrim[] = [];
    const trimmed = buildDatabase(posed, { mirror: true, onCalibrationTrim: (t) => { trims = t; } });
    const plain = buildDatabase(sources, { mirror: true });
    expect(trims.map((t) => [t.clip, t.start, t.end])).toEqual(sources.map((s) => [s.clip.name, 1, 0]));
    for (const t of trims) expect(t.ratio).toBeGreaterThanOrEqual(CALIBRATION_STEP_RATIO);
    expect(trimmed.frameCount).toBe(plain.frameCount);
    expect(sameBits(trimmed.features, plain.features)).toBe(true);
    expect(sameBits(trimmed.rotations, plain.rotations)).toBe(true);
  });

  it("keeps every frame with captureFaults 'keep', and trims nothing from takes without the pose", () => {
    let trims: CalibrationTrim[] | null = null;
    const kept = buildDatabase(posed, { captureFaults: 'keep', onCalibrationTrim: (t) => { trims = t; } });
    expect(kept.frameCount).toBe(sources.reduce((n, s) => n + s.clip.frameCount + 1, 0));
    expect(trims).toEqual([]);
    const plain: CalibrationTrim[][] = [];
    buildDatabase(builtinSources(), { onCalibrationTrim: (t) => plain.push(t) });
    expect(plain).toEqual([[]]);
    expect(() => buildDatabase(sources, { captureFaults: 'drop' as 'fix' })).toThrow(/captureFaults must be 'fix' or 'keep', got drop/);
  });
});

describe('a take whose hips jump (spliced takes, a reset capture volume)', () => {
  it('placeJumps: the steps that stand out, each in its part; none in steady or fast motion', () => {
    const leg = 0.9;
    expect(placeJumps(steps(100, 0.04, { 40: 1 }), leg)).toEqual([40]);
    expect(placeJumps(steps(100, 0.04, { 40: 1, 70: 0.8 }), leg)).toEqual([40, 70]); // two splices
    expect(placeJumps(steps(100, 0.14), leg)).toEqual([]); // a sprint at 30 fps
    expect(placeJumps(steps(100, 0.04, { 40: 0.1 }), leg)).toEqual([]); // 2.5x, but 10 cm
    expect(placeJumps(steps(100, 0.04, { 0: 1 }), leg)).toEqual([]); // a part of one frame is no take
  });

  it('is cut in two: the second part its own clip NAME@FRAME; kept whole with captureFaults \'keep\'', () => {
    const s = builtinSources()[0], J = s.skeleton.names.length, F = s.clip.frameCount, k = Math.floor(F / 2);
    const t = Float64Array.from(s.clip.translations);
    for (let f = k; f < F; f++) t[f * J * 3] += 1; // the root joint carries the placement: 1 m sideways from frame k on
    const spliced: SourceMotion = { ...s, clip: { ...s.clip, translations: t } };
    let cuts: PlaceJump[] = [];
    const db = buildDatabase([spliced], { onPlaceJumps: (c) => { cuts = c; } });
    expect(cuts).toEqual([{ clip: s.clip.name, source: s.clip.source, frame: k, step: expect.closeTo(1, 2) }]);
    expect(db.clips.map((c) => [c.name, c.count])).toEqual([[s.clip.name, k], [`${s.clip.name}@${k}`, F - k]]);
    const whole = buildDatabase([spliced], { captureFaults: 'keep' });
    expect(whole.clips.map((c) => [c.name, c.count])).toEqual([[s.clip.name, F]]);
  });
});

describe('a glitch inside a take: a pose that jumps away for a frame or three and comes back', () => {
  const sources = builtinSources().slice(0, 3);
  const sk = sources[0].skeleton, j = (n: string) => sk.names.indexOf(n);
  const arms = [{ upper: j('upperarm_l'), lower: j('lowerarm_l'), hand: j('hand_l') }, { upper: j('upperarm_r'), lower: j('lowerarm_r'), hand: j('hand_r') }] as const;
  /** `s` with frames [k, k + n) replaced by frame k with the arms straight out (withTPoseInFront's pose). */
  const glitched = (s: SourceMotion, k: number, n: number): SourceMotion => {
    const J = sk.names.length, F = s.clip.frameCount;
    const from = { ...s.clip, frameCount: F - k, rotations: s.clip.rotations.slice(k * J * 4), translations: s.clip.translations.slice(k * J * 3) };
    const pose = withTPoseInFront(sk, from, arms, j('thigh_l'), j('thigh_r'), 1);
    const rotations = Float64Array.from(s.clip.rotations);
    for (let f = k; f < k + n; f++) rotations.set(pose.rotations.subarray(0, J * 4), f * J * 4);
    return { ...s, clip: { ...s.clip, rotations } };
  };

  it('is interpolated over (one frame, three frames), said, and kept with captureFaults \'keep\'', () => {
    const input = [glitched(sources[0], 20, 1), glitched(sources[1], 15, 3), sources[2]];
    let repairs: GlitchRepair[] = [];
    const db = buildDatabase(input, { onGlitches: (g) => { repairs = g; } });
    expect(repairs.map((r) => [r.clip, r.runs])).toEqual([[sources[0].clip.name, [[20, 20]]], [sources[1].clip.name, [[15, 17]]]]);
    // The repaired frames lie between their neighbours: the hands move no more in a step than elsewhere.
    const plain = buildDatabase(sources);
    const step = (d: typeof db, c: number, f: number): number => {
      const J = sk.names.length, o = d.clips[c].start + f, h = j('hand_l');
      const a = (o * J + h) * 3, b = ((o + 1) * J + h) * 3;
      return Math.hypot(d.translations[b] - d.translations[a], d.translations[b + 1] - d.translations[a + 1], d.translations[b + 2] - d.translations[a + 2]);
    };
    expect(step(db, 0, 19)).toBe(step(plain, 0, 19)); // (local translations: the hand's offset, unchanged)
    expect(db.frameCount).toBe(plain.frameCount);
    let kept: GlitchRepair[] | null = null;
    const whole = buildDatabase(input, { captureFaults: 'keep', onGlitches: (g) => { kept = g; } });
    expect(kept).toEqual([]);
    expect(sameBits(whole.rotations, db.rotations)).toBe(false);
  });

  it('fast motion all along, a take that moves on (no coming back), and clean takes are left as they are', () => {
    let repairs: GlitchRepair[] = [];
    buildDatabase(builtinSources(), { onGlitches: (g) => { repairs = g; } });
    expect(repairs).toEqual([]);
  });
});

describe('takes standing on different floors (sessions calibrated apart)', () => {
  it('clipFloorShifts: a take further than the agreement from the floor most takes share is moved onto it', () => {
    expect(clipFloorShifts([0.042, 0.0425, 0.043, 0.0825, 0.002], 0.9)).toEqual([0, 0, 0, expect.closeTo(-0.04, 9), expect.closeTo(0.0405, 9)]);
    // Half the takes 4 cm up: onto the lower half's floor, not between the two.
    expect(clipFloorShifts([0.042, 0.082, 0.042, 0.082], 0.9)).toEqual([0, expect.closeTo(-0.04, 9), 0, expect.closeTo(-0.04, 9)]);
    expect(clipFloorShifts([0.042, 0.05, 0.035], 0.9)).toEqual([0, 0, 0]); // within 2.25 cm
    expect(clipFloorShifts([0.1], 0.9)).toEqual([0]);
  });

  it('a build moves such a take (and its mirrored copy) onto the others, and says so; nothing moves on one floor', () => {
    const sources = builtinSources().slice(0, 4);
    const J = sources[0].skeleton.names.length;
    const up = (s: SourceMotion, dy: number): SourceMotion => {
      const t = Float64Array.from(s.clip.translations);
      for (let f = 0; f < s.clip.frameCount; f++) t[f * J * 3 + 1] += dy;
      return { ...s, clip: { ...s.clip, translations: t } };
    };
    let moves: FloorMove[] = [];
    const db = buildDatabase([sources[0], up(sources[1], 0.05), sources[2], sources[3]], { mirror: true, onFloorMoves: (m) => { moves = m; } });
    expect(moves.map((m) => [m.clip, +m.shift.toFixed(4)])).toEqual([[sources[1].clip.name, -0.05]]);
    const plain = buildDatabase(sources, { mirror: true });
    expect(Math.max(...db.translations.map((v, i) => Math.abs(v - plain.translations[i])))).toBeLessThan(1e-6);
    buildDatabase(sources, { mirror: true, onFloorMoves: (m) => { moves = m; } });
    expect(moves).toEqual([]);
  });
});
