/**
 * Building one database from many files: joints listed in other orders, other rest offsets, other
 * skeletons (refused, with what differs), other frame rates (resampled, recorded), loops.
 */
import { describe, it, expect } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Skeleton } from '../../src/anim/skeleton.js';
import type { Clip } from '../../src/anim/clip.js';
import { buildDatabase, DatabaseBuildError, type SourceMotion } from '../../src/database/build.js';
import { resampleClip, resampleLoop } from '../../src/database/resample.js';
import { isClosedLoop, openLoop } from '../../src/database/loops.js';
import { matchJointsByName, reorderClipJoints } from '../../src/database/skeleton-match.js';
import { readBvhFile } from '../../src/import/bvh/bvh-node.js';
import { parseBvh } from '../../src/import/bvh/bvh.js';
import { writeBvh } from '../../src/import/bvh/write.js';
import { groupColumns, DEFAULT_SCHEMA, endMarginFrames } from '../../src/features/schema.js';
import { findBoneRoles } from '../../src/features/roles.js';
import { RIG_CONVENTIONS, skeletonOfRows, walkClip, type Row } from '../features/rig-conventions.js';
import { MOCAP_DIR, MOCAP_SKIP_REASON } from '../helpers/cli.js';

const HAS_LOOPS = existsSync(join(MOCAP_DIR, 'core')) && existsSync(join(MOCAP_DIR, 'locomotion'));
if (!HAS_LOOPS) console.log(MOCAP_SKIP_REASON);

const MIXAMO = RIG_CONVENTIONS.find((c) => c.label.startsWith('Mixamo'))!;

/** The same rows with every joint's children listed in reverse order (still parents first). */
function childrenReversed(rows: readonly Row[]): Row[] {
  const kids = new Map<string | null, Row[]>();
  for (const r of rows) kids.set(r[1], [...(kids.get(r[1]) ?? []), r]);
  const out: Row[] = [];
  const visit = (parent: string | null): void => {
    for (const r of [...(kids.get(parent) ?? [])].reverse()) { out.push(r); visit(r[0]); }
  };
  visit(null);
  return out;
}

/** The clip of skeleton `from` expressed on skeleton `to` (same joint names, another order). */
function onSkeleton(clip: Clip, from: Skeleton, to: Skeleton): Clip {
  const perm = new Int32Array(to.names.map((n) => from.names.indexOf(n)));
  return reorderClipJoints(clip, perm);
}

describe('several files of one rig', () => {
  const a = skeletonOfRows(MIXAMO.rows);
  const b = skeletonOfRows(childrenReversed(MIXAMO.rows));
  const clipA = walkClip(a, 'a');

  it('joints listed in another order are matched by name and reordered to the first file', () => {
    expect(b.names).not.toEqual(a.names);
    const clipB = { ...onSkeleton(clipA, a, b), name: 'b', source: 'b.bvh' };
    const db = buildDatabase([{ skeleton: a, clip: clipA }, { skeleton: b, clip: clipB }]);
    expect(db.skeleton.names).toEqual(a.names);
    expect(db.clips.map((c) => c.count)).toEqual([clipA.frameCount, clipA.frameCount]);
    // The same motion in both files: the second clip's poses and features equal the first's.
    const F = clipA.frameCount, J = a.names.length, S = db.stride;
    expect(db.rotations.subarray(F * J * 4, 2 * F * J * 4)).toEqual(db.rotations.subarray(0, F * J * 4));
    expect(db.rawFeatures.subarray(F * S, 2 * F * S)).toEqual(db.rawFeatures.subarray(0, F * S));
  });

  it('matchJointsByName gives the permutation, and nothing for identical skeletons', () => {
    const m = matchJointsByName(a, b);
    expect('perm' in m).toBe(true);
    if ('perm' in m) expect([...m.perm].map((k) => b.names[k])).toEqual(a.names);
  });

  it('other rest OFFSETs (a start position in the hips OFFSET) keep working', () => {
    const rows = MIXAMO.rows.map((r): Row => (r[0] === 'Hips' ? [r[0], r[1], [3, 0.95, -2]] : r));
    const moved = skeletonOfRows(rows);
    const db = buildDatabase([{ skeleton: a, clip: clipA }, { skeleton: moved, clip: { ...walkClip(moved, 'm'), source: 'm.bvh' } }]);
    expect(db.clips.length).toBe(2);
  });

  it('a truly different skeleton is refused with what differs, compactly, naming both files', () => {
    const rows: Row[] = MIXAMO.rows
      .filter((r) => !r[0].startsWith('LeftToe'))
      .map((r): Row => (r[0] === 'Head' ? ['Head', 'Spine2', r[2]] : r));
    rows.push(['Tail1', 'Hips', [0, 0, -0.1]], ['Tail2', 'Tail1', [0, 0, -0.1]], ['Tail3', 'Tail2', [0, 0, -0.1]], ['Tail4', 'Tail3', [0, 0, -0.1]], ['Tail5', 'Tail4', [0, 0, -0.1]]);
    const other = skeletonOfRows(rows);
    let err: unknown;
    try {
      buildDatabase([{ skeleton: a, clip: { ...clipA, source: 'first.bvh' } }, { skeleton: other, clip: { ...walkClip(other, 'x'), source: 'other.bvh' } }]);
    } catch (e) { err = e; }
    expect(err).toBeInstanceOf(DatabaseBuildError);
    expect((err as Error).message).toBe(
      "other.bvh: its skeleton differs from first.bvh's (missing here: LeftToeBase, LeftToe_End; extra here: Tail1, Tail2, Tail3, Tail4 and 1 more; " +
      'different parent: Head (under Spine2 here, Neck there)); a database holds one skeleton: build separate databases or retarget first',
    );
  });
});

describe('several frame rates in one build', () => {
  const s = skeletonOfRows(MIXAMO.rows);
  const at30 = walkClip(s, 'walk30', 2, 30);

  it('resamples to the common rate and records each resampled clip\'s own rate', () => {
    const at60 = { ...resampleClip(at30, 60, s.names.length), name: 'walk60' };
    const at24 = { ...resampleClip(at30, 24, s.names.length), name: 'walk24' };
    const sources: SourceMotion[] = [at30, at60, at24].map((clip) => ({ skeleton: s, clip }));
    const db = buildDatabase(sources, { fps: 30 });
    expect(db.fps).toBe(30);
    expect(db.clips.map((c) => [c.name, c.sourceFps])).toEqual([['walk30', undefined], ['walk60', 60], ['walk24', 24]]);
    expect('sourceFps' in db.clips[0]).toBe(false);
    // Without --fps the highest rate wins and the others are resampled up.
    const high = buildDatabase(sources, { mirror: true });
    expect(high.fps).toBe(60);
    expect(high.clips.map((c) => [c.name, c.mirrored, c.sourceFps])).toEqual([
      ['walk30', false, 30], ['walk60', false, undefined], ['walk24', false, 24],
      ['walk30_mirror', true, 30], ['walk60_mirror', true, undefined], ['walk24_mirror', true, 24],
    ]);
  });

  it.skipIf(!HAS_LOOPS)('a clip of the shared data re-timed to 60 and 24 fps (written as BVH) matches the original after resampling', () => {
    const orig = readBvhFile(join(MOCAP_DIR, 'core', 'dataset-2_walk_normal_005.bvh'));
    const J = orig.skeleton.names.length;
    const retimed = [60, 24].map((fps) => {
      const text = writeBvh(orig.skeleton, resampleClip(orig.clip, fps, J), { unitScale: 100 });
      return parseBvh(text, { file: `walk_${fps}.bvh` });
    });
    expect(retimed.map((r) => r.clip.fps)).toEqual([60, 24]);
    const db = buildDatabase([orig, ...retimed].map((r) => ({ skeleton: r.skeleton, clip: r.clip })));
    expect(db.fps).toBe(60);
    expect(db.clips.map((c) => c.sourceFps)).toEqual([30, undefined, 24]);
    const db30 = buildDatabase([orig, ...retimed].map((r) => ({ skeleton: r.skeleton, clip: r.clip })), { fps: 30 });
    expect(db30.clips.map((c) => c.sourceFps)).toEqual([undefined, 60, 24]);
    // Future root positions (m, in the root frame) of the round-tripped clips follow the original.
    const [tp0, tp1] = groupColumns(DEFAULT_SCHEMA)[3];
    const S = db30.stride;
    for (const k of [1, 2]) {
      const c = db30.clips[k], n = Math.min(c.count, db30.clips[0].count) - 10;
      let worst = 0;
      for (let f = 0; f < n; f++) {
        for (let col = tp0; col < tp1; col++) worst = Math.max(worst, Math.abs(db30.rawFeatures[(c.start + f) * S + col] - db30.rawFeatures[f * S + col]));
      }
      console.log(`re-timed ${c.name}: future root positions within ${(worst * 100).toFixed(1)} cm of the original`);
      // 24 fps keeps less of the motion than 60 fps: a looser bound for it.
      expect(worst, c.name).toBeLessThan(c.sourceFps === 24 ? 0.06 : 0.005);
    }
  });
});

/** A looping clip repeated `cycles` times, the root (joint 0) moved on by (dx, dz) per cycle. */
function tiled(c: Clip, J: number, cycleFrames: number, dx: number, dz: number, cycles: number): Clip {
  const F = cycleFrames * cycles;
  const rot = new Float64Array(F * J * 4), pos = new Float64Array(F * J * 3);
  for (let f = 0; f < F; f++) {
    const i = f % cycleFrames, n = Math.floor(f / cycleFrames);
    rot.set(c.rotations.subarray(i * J * 4, (i + 1) * J * 4), f * J * 4);
    pos.set(c.translations.subarray(i * J * 3, (i + 1) * J * 3), f * J * 3);
    pos[f * J * 3] += n * dx; pos[f * J * 3 + 2] += n * dz;
  }
  return { ...c, name: `${c.name}_tiled`, frameCount: F, rotations: rot, translations: pos, loop: false };
}

describe('loops', () => {
  const LOOPS: Array<[string, number, boolean]> = [
    ['core/dataset-1_walk-back_normal_001.bvh', 31, true],
    ['core/dataset-1_dash_normal_001.bvh', 20, false],
    ['locomotion/dataset-1_walk_normal_002.bvh', 31, true],
  ];

  for (const [file, frames, closed] of LOOPS) {
    it.skipIf(!HAS_LOOPS)(`${file}: every frame a candidate, and the future wraps into the next cycle`, () => {
      const r = readBvhFile(join(MOCAP_DIR, file));
      const J = r.skeleton.names.length, T = r.clip.translations;
      expect(r.clip.frameCount).toBe(frames);
      const hips = findBoneRoles(r.skeleton).hips;
      expect(isClosedLoop({ ...r.clip, loop: true }, r.skeleton, hips)).toBe(closed);
      const loop = buildDatabase([{ skeleton: r.skeleton, clip: r.clip, loop: true }]);
      const plain = buildDatabase([{ skeleton: r.skeleton, clip: r.clip }]);
      // A closed loop repeats its first pose as its last frame: that frame is dropped.
      const n = closed ? frames - 1 : frames;
      expect(loop.frameCount).toBe(n);
      expect(loop.clips[0].loop).toBe(true);
      expect(loop.candidates.every((c) => c === 1)).toBe(true);
      expect(plain.candidates.reduce((a, c) => a + c, 0)).toBe(frames - endMarginFrames(DEFAULT_SCHEMA, 30, frames, false));

      // Truth: the cycle repeated, its root carried on by one cycle each time. A closed loop's
      // displacement is exact (its last frame is the next cycle's first); an open one continues
      // its last step, as feature extraction does.
      const rootAt = (f: number, d: number): number => T[f * J * 3 + d];
      const [dx, dz] = closed
        ? [rootAt(frames - 1, 0) - rootAt(0, 0), rootAt(frames - 1, 2) - rootAt(0, 2)]
        : [2 * rootAt(frames - 1, 0) - rootAt(frames - 2, 0) - rootAt(0, 0), 2 * rootAt(frames - 1, 2) - rootAt(frames - 2, 2) - rootAt(0, 2)];
      const truth = buildDatabase([{ skeleton: r.skeleton, clip: tiled(r.clip, J, n, dx, dz, 5) }]);
      const [tp0, tp1] = groupColumns(DEFAULT_SCHEMA)[3];
      const S = loop.stride;
      const worst = (db: typeof loop, count: number): number => {
        let w = 0;
        for (let f = 0; f < count; f++) {
          for (let c = tp0; c < tp1; c++) w = Math.max(w, Math.abs(db.rawFeatures[f * S + c] - truth.rawFeatures[(2 * n + f) * S + c]));
        }
        return w;
      };
      const loopError = worst(loop, n), plainError = worst(plain, Math.min(n, plain.frameCount));
      // Within a few centimetres of the truth (what is left comes from smoothing the root track
      // at the clip's ends); extrapolating instead of wrapping is several times further off.
      expect(loopError).toBeLessThan(closed ? 0.03 : 0.15);
      expect(plainError).toBeGreaterThan(4 * loopError);
    });
  }

  it('a closed loop loses its repeated frame; an open loop, a still pose and a non-loop keep theirs', () => {
    const s = skeletonOfRows(MIXAMO.rows);
    const hips = s.names.indexOf('Hips');
    const J = s.names.length;
    const cycle = walkClip(s, 'cycle', 1, 30); // 31 frames; the swing has period 1/1.8 s, not 1 s
    expect(isClosedLoop({ ...cycle, loop: true }, s, hips)).toBe(false);
    // Close it: the last frame repeats the first pose (the root moved on).
    const closedClip = { ...cycle, loop: true, rotations: Float64Array.from(cycle.rotations) };
    closedClip.rotations.set(cycle.rotations.subarray(0, J * 4), (cycle.frameCount - 1) * J * 4);
    expect(isClosedLoop(closedClip, s, hips)).toBe(true);
    expect(openLoop(closedClip, s, hips).frameCount).toBe(30);
    expect(openLoop({ ...closedClip, loop: false }, s, hips).frameCount).toBe(31);
    const still = { ...closedClip, rotations: new Float64Array(closedClip.rotations.length).map((_, i) => (i % 4 === 3 ? 1 : 0)) };
    expect(isClosedLoop(still, s, hips)).toBe(false);
  });

  it('--loop globs, clip.loop and SourceMotion.loop mark loops; SourceMotion.loop wins', () => {
    const s = skeletonOfRows(MIXAMO.rows);
    const sources: SourceMotion[] = [
      { skeleton: s, clip: walkClip(s, 'walk_loop') },
      { skeleton: s, clip: { ...walkClip(s, 'run'), loop: true } },
      { skeleton: s, clip: walkClip(s, 'idle_loop'), loop: false },
      { skeleton: s, clip: walkClip(s, 'turn'), loop: true },
      { skeleton: s, clip: walkClip(s, 'stop') },
    ];
    const db = buildDatabase(sources, { loops: ['*_LOOP'] });
    expect(db.clips.map((c) => [c.name, c.loop])).toEqual([['walk_loop', true], ['run', true], ['idle_loop', false], ['turn', true], ['stop', false]]);
    for (const c of db.clips) {
      let n = 0;
      for (let f = c.start; f < c.start + c.count; f++) n += db.candidates[f];
      expect(n, c.name).toBe(c.loop ? c.count : c.count - Math.min(Math.round(DEFAULT_SCHEMA.endMarginSeconds * 30), Math.floor(c.count / 2)));
    }
  });

  it('a loop resampled to another rate keeps its period and still closes', () => {
    const s = skeletonOfRows(MIXAMO.rows);
    const J = s.names.length;
    const loop = { ...walkClip(s, 'l', 29 / 30, 30), loop: true }; // 30 frames: one period of 1 s
    const up = resampleLoop(loop, 60, J);
    expect(up.frameCount).toBe(60);
    expect(up.loop).toBe(true);
    // Every second frame at 60 fps is a frame of the original.
    for (let f = 0; f < 30; f++) {
      for (let i = 0; i < J * 4; i++) expect(up.rotations[2 * f * J * 4 + i]).toBeCloseTo(loop.rotations[f * J * 4 + i], 12);
    }
    // The last new frame lies halfway between the last old frame and the first: the cycle closes.
    const mid = (i: number): number => up.rotations[59 * J * 4 + i];
    for (let j = 0; j < J; j++) {
      const a = loop.rotations.subarray(29 * J * 4 + 4 * j, 29 * J * 4 + 4 * j + 4), b = loop.rotations.subarray(4 * j, 4 * j + 4);
      const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
      for (let k = 0; k < 4; k++) expect(mid(4 * j + k)).toBeCloseTo((a[k] + Math.sign(dot) * b[k]) / Math.hypot(...[0, 1, 2, 3].map((m) => a[m] + Math.sign(dot) * b[m])), 6);
    }
    // The root keeps moving forward across the wrap instead of jumping back.
    expect(up.translations[59 * J * 3 + 2]).toBeGreaterThan(up.translations[58 * J * 3 + 2]);
    // Through buildDatabase with another clip at 60 fps: recorded as resampled from 30.
    const db = buildDatabase([{ skeleton: s, clip: loop }, { skeleton: s, clip: resampleClip(walkClip(s, 'w'), 60, J) }]);
    expect(db.clips.map((c) => [c.count, c.sourceFps])).toEqual([[60, 30], [121, undefined]]);
  });
});
