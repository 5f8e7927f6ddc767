/**
 * Copies of the built-in database decoded from the same bytes share what is derived from their
 * poses (declarePoseTwin, src/database/pose-source.ts), but only while a copy is still equal to the
 * bytes when it is first used: a copy changed before that derives its own.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { builtinDatabase } from '../../src/apps/builtin-database.js';
import { databaseRuntime, framePoseAt } from '../../src/runtime/database-runtime.js';
import { capturedData } from '../../src/runtime/captured-data.js';
import { declarePoseTwin, poseSource, samePoseData } from '../../src/database/pose-source.js';
import { decodeDatabase } from '../../src/database/mmdb/decode.js';
import { encodeDatabase } from '../../src/database/mmdb/encode.js';
import type { Database } from '../../src/database/database.js';

describe('copies of the built-in database', () => {
  it('share the runtime tables and the captured contact data, each pointing at its own database', () => {
    builtinDatabase(); // (the process's first copy may be another file's)
    const a = builtinDatabase(), b = builtinDatabase();
    const ra = databaseRuntime(a), rb = databaseRuntime(b);
    // (Object.is: .toBe words a failure by comparing two databases element by element, for seconds)
    expect(Object.is(ra.db, a)).toBe(true);
    expect(Object.is(rb.db, b)).toBe(true);
    expect(Object.is(ra.rootRelativeRotations, rb.rootRelativeRotations)).toBe(true);
    expect(Object.is(ra.angularVelocities, rb.angularVelocities)).toBe(true);
    expect(Object.is(capturedData(a), capturedData(b))).toBe(true);
    // ...and are still copies of their own.
    expect(Object.is(a.rotations, b.rotations)).toBe(false);
  });

  it('derive their own once changed before their first use', () => {
    builtinDatabase();
    const a = builtinDatabase(), changed = builtinDatabase();
    // The hips' rotation in frame 10 turned a little, before anything was derived from the copy.
    const J = changed.skeleton.names.length, o = (10 * J + changed.roles.hips) * 4;
    changed.rotations[o] += 0.01;
    const ra = databaseRuntime(a), rc = databaseRuntime(changed);
    expect(Object.is(ra.rootRelativeRotations, rc.rootRelativeRotations)).toBe(false);
    expect(Object.is(poseSource(changed), changed)).toBe(true);
    // The changed frame shows in the changed copy's poses, and only there.
    const pose = (rt: typeof ra, f: number): number[] => { const r = new Float64Array(4 * J), t = new Float64Array(3 * J); framePoseAt(rt, f, r, 0, t, 0); return [...r, ...t]; };
    expect(pose(rc, 10)).not.toEqual(pose(ra, 10));
    for (let f = 0; f < 10; f++) expect(pose(rc, f)).toEqual(pose(ra, f));
  });
});

describe('samePoseData', () => {
  /** A small database and an equal copy of it (decoded from its bytes). */
  const base = builtinDatabase();
  const bytes = encodeDatabase(base);
  const fresh = (): Database => decodeDatabase(bytes, 'copy');

  it('is true for a copy decoded from the same bytes, and false once any byte it covers differs', () => {
    expect(samePoseData(base, fresh())).toBe(true);
    const arrays = ['rotations', 'translations', 'rootPositions', 'rootRotations', 'contacts', 'candidates', 'tagBits', 'rawFeatures'] as const;
    fc.assert(fc.property(fc.constantFrom(...arrays), fc.nat(), fc.integer({ min: 1, max: 255 }), (name, at, flip) => {
      const copy = fresh();
      const a = copy[name], u8 = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
      u8[at % u8.length] ^= flip;
      return !samePoseData(base, copy) && !samePoseData(copy, base);
    }), { numRuns: 40 });
  });

  it('compares the clips, the skeleton, the roles and the frame rate too, but not the feature weights', () => {
    const edits: Array<(d: Database) => void> = [
      (d) => { d.clips[3] = { ...d.clips[3], loop: !d.clips[3].loop }; },
      (d) => { d.clips[0] = { ...d.clips[0], tags: [...d.clips[0].tags, 'x'] }; },
      (d) => { d.skeleton.offsets[5] += 1e-6; },
      (d) => { d.roles = { ...d.roles, hips: d.roles.hips + 1 }; },
      (d) => { d.fps = d.fps + 1; },
    ];
    for (const edit of edits) {
      const copy = fresh();
      edit(copy);
      expect(samePoseData(base, copy), edit.toString()).toBe(false);
    }
    const reweighted = fresh();
    reweighted.features[0] += 1;
    reweighted.scale[0] *= 2;
    expect(samePoseData(base, reweighted)).toBe(true);
  });

  it('is checked when a declared twin is first asked for: a copy changed before that is its own source', () => {
    const source = fresh(), same = fresh(), changed = fresh();
    declarePoseTwin(same, source);
    declarePoseTwin(changed, source);
    changed.rootPositions[7] += 0.5;
    expect(Object.is(poseSource(same), source)).toBe(true);
    expect(Object.is(poseSource(changed), changed)).toBe(true);
    // Decided once: a later change does not undo it (as anything derived at first use).
    changed.rootPositions[7] -= 0.5;
    expect(Object.is(poseSource(changed), changed)).toBe(true);
  });
});
