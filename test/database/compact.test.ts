/**
 * Compact databases (docs/compact.md): the error bound holds where ACL measures it, mirrored copies
 * are rebuilt from their originals, everything derived is rebuilt so that search answers equal
 * those of a float32 file of the decoded poses, and the file is far smaller.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources, loadBvhSources } from '../../src/database/sources-node.js';
import type { Database } from '../../src/database/database.js';
import { decodeDatabase, encodeDatabase, inspectDatabase } from '../../src/database/mmdb/mmdb.js';
import { encodeCompactDatabase } from '../../src/database/mmdb/encode-compact.js';
import { readPoseErrorReport } from '../../src/database/mmdb/inspect.js';
import { measurePoseError } from '../../src/database/compact/pose-error.js';
import { ERROR_THRESHOLD, VIRTUAL_POINT_DISTANCE, virtualPointError } from '../../src/database/compact/error-metric.js';
import { quatRotateVec3 } from '../../src/math/quat.js';
import { encodeClip } from '../../src/database/compact/encode-clip.js';
import { decodeClip } from '../../src/database/compact/decode-clip.js';
import { clipOfRange } from '../../src/database/compact/mirror-links.js';
import { GENERAL_REFLECTION, mirrorClip, mirrorSetup } from '../../src/features/mirror.js';
import { arbitraryFrameTurns, turnJointFrames } from '../helpers/turn-frames.js';
import { decodeError, withSection } from './mmdb-craft.js';
import { Matcher } from '../../src/search/matcher.js';
import { HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON } from '../helpers/cli.js';
import { join } from 'node:path';

/** A few built-in clips, mirrored: small enough to compress in about a second. */
function smallBuiltin(): Database {
  return buildDatabase(builtinSources().slice(0, 5), { mirror: true, tagRules: [{ tag: 'early', pattern: '*', from: 0, to: 0.5 }] });
}

describe('compact database: built-in clips', () => {
  let db: Database;
  let bytes: Uint8Array;
  let loaded: Database;
  let reported: ReturnType<typeof encodeCompactDatabase>['error'];
  beforeAll(() => {
    db = smallBuiltin();
    const enc = encodeCompactDatabase(db);
    bytes = enc.bytes;
    reported = enc.error;
    loaded = decodeDatabase(bytes, 'small.mmdb');
  });

  it('is a version-2 compact file, far smaller than the float32 one', () => {
    const info = inspectDatabase(bytes);
    expect(info.kind).toBe('compact');
    expect(info.version).toBe(2);
    expect(info.sections.map((s) => s.tag)).not.toContain('FEAT');
    expect(bytes.length * 8).toBeLessThan(encodeDatabase(db).length);
  });

  it('keeps every joint of every clip (mirrored copies too) within 0.01 cm at 3 cm virtual points', () => {
    const e = measurePoseError(db.skeleton.parents, db.clips, db, loaded);
    expect(e.overall.max).toBeLessThanOrEqual(ERROR_THRESHOLD);
    expect(e.overall.max).toBeGreaterThan(0); // lossy: it does compress
    // The report stored in the file is this measurement.
    const stored = readPoseErrorReport(bytes)!;
    expect(stored.overall.max).toBeCloseTo(e.overall.max, 9);
    expect(reported.clips.length).toBe(db.clips.length);
    for (let i = 0; i < db.clips.length; i++) expect(stored.clips[i].max).toBeCloseTo(e.clips[i].max, 9);
  });

  it('rebuilds mirrored clips by mirroring their decoded originals', () => {
    const J = db.skeleton.names.length;
    const originals = loaded.clips.filter((c) => !c.mirrored);
    const setup = mirrorSetup(db.skeleton, originals.map((c) => clipOfRange(db, c)));
    for (const c of loaded.clips.filter((x) => x.mirrored)) {
      const o = loaded.clips.find((x) => x.name === c.name.replace(/_mirror$/, ''))!;
      const m = mirrorClip(loaded.skeleton, clipOfRange(loaded, o), setup);
      expect(Array.from(loaded.rotations.subarray(c.start * J * 4, (c.start + c.count) * J * 4))).toEqual(Array.from(Float32Array.from(m.rotations)));
    }
  });

  it('keeps clips, tags and the schema', () => {
    expect(loaded.clips).toEqual(db.clips);
    expect(loaded.tagNames).toEqual(db.tagNames);
    expect(Array.from(loaded.tagBits)).toEqual(Array.from(db.tagBits));
    expect(loaded.schema).toEqual(db.schema);
    expect(Array.from(loaded.candidates)).toEqual(Array.from(db.candidates));
  });

  it('searches exactly like a float32 file of the decoded poses (bit-identical features)', async () => {
    const f32 = decodeDatabase(encodeDatabase(loaded), 'decoded-poses.mmdb');
    expect(Buffer.from(f32.features.buffer).equals(Buffer.from(loaded.features.buffer))).toBe(true);
    const a = await Matcher.create(loaded), b = await Matcher.create(f32);
    const S = db.stride;
    // Queries: the original database's rows (near, not equal, to the rebuilt ones).
    for (let f = 0; f < db.frameCount; f += 37) {
      const q = db.features.subarray(f * S, (f + 1) * S);
      for (const method of ['brute', 'kdtree'] as const) {
        const ra = a.search(q, { normalized: true, method }), rb = b.search(q, { normalized: true, method });
        expect([ra.frame, ra.cost]).toEqual([rb.frame, rb.cost]);
      }
    }
  });

  it('features stay close to the original build', () => {
    let d = 0;
    for (let i = 0; i < db.features.length; i++) d = Math.max(d, Math.abs(db.features[i] - loaded.features[i]));
    expect(d).toBeLessThan(0.05);
  });

  it('is deterministic', () => {
    expect(Buffer.from(encodeCompactDatabase(db).bytes).equals(Buffer.from(bytes))).toBe(true);
  });
});

describe('compact database: a rig whose mirror needs general reflections', () => {
  // Three built-in clips with every joint's frame turned by a constant (test/helpers/turn-frames.ts):
  // no local axis relates left and right, so the file stores each joint's reflection.
  let db: Database;
  let bytes: Uint8Array;
  let loaded: Database;
  beforeAll(() => {
    const sources = builtinSources().slice(0, 3);
    const C = arbitraryFrameTurns(sources[0].skeleton, 0);
    db = buildDatabase(sources.map((s) => turnJointFrames(s.skeleton, s.clip, C)), { mirror: true });
    bytes = encodeCompactDatabase(db).bytes;
    loaded = decodeDatabase(bytes, 'turned.mmdb');
  });

  it('rebuilds mirrored clips with the stored general reflections, within the error bound', () => {
    const J = db.skeleton.names.length;
    const originals = loaded.clips.filter((c) => !c.mirrored);
    const setup = mirrorSetup(db.skeleton, originals.map((c) => clipOfRange(db, c)));
    expect(Array.from(setup.axes).filter((a) => a === GENERAL_REFLECTION).length).toBeGreaterThan(J / 2);
    expect(loaded.clips.filter((c) => c.mirrored).length).toBe(3);
    for (const c of loaded.clips.filter((x) => x.mirrored)) {
      const o = loaded.clips.find((x) => x.name === c.name.replace(/_mirror$/, ''))!;
      const m = mirrorClip(loaded.skeleton, clipOfRange(loaded, o), setup);
      expect(Array.from(loaded.rotations.subarray(c.start * J * 4, (c.start + c.count) * J * 4))).toEqual(Array.from(Float32Array.from(m.rotations)));
      expect(Array.from(loaded.translations.subarray(c.start * J * 3, (c.start + c.count) * J * 3))).toEqual(Array.from(Float32Array.from(m.translations)));
    }
    expect(measurePoseError(db.skeleton.parents, db.clips, db, loaded).overall.max).toBeLessThanOrEqual(ERROR_THRESHOLD);
  });

  it('searches exactly like a float32 file of the decoded poses', async () => {
    const f32 = decodeDatabase(encodeDatabase(loaded), 'decoded-poses.mmdb');
    expect(Buffer.from(f32.features.buffer).equals(Buffer.from(loaded.features.buffer))).toBe(true);
  });

  it('refuses a reflection that is not a rotation, or an unknown axis code', () => {
    const J = db.skeleton.names.length;
    // CMIR's last field holds the frames (4 f64 per joint); the axes (u8) come before it.
    const stretched = withSection(bytes, 'CMIR', (payload, dv) => { dv.setFloat64(payload.length - 32 * J, 2, true); });
    expect(decodeError(stretched, 'turned.mmdb').message).toMatch(/^turned\.mmdb: .*mirror frame .* is not a unit quaternion/);
    const unknown = withSection(bytes, 'CMIR', (payload) => { payload[payload.length - 32 * J - 8 - 8 * Math.ceil(J / 8)] = 4; });
    expect(decodeError(unknown, 'turned.mmdb').message).toMatch(/^turned\.mmdb: .*mirror axis is 4, expected 0, 1, 2 or 3/);
  });
});

describe('compact clip codec', () => {
  it('the error metric sees a hips tilt at the feet: 0.2 mrad breaks the bound, 0.02 mrad does not', () => {
    const db = smallBuiltin();
    const J = db.skeleton.names.length, hips = db.roles.hips;
    const tilted = (angle: number): { rotations: Float32Array; translations: Float32Array } => {
      const rotations = Float32Array.from(db.rotations);
      const o = (10 * J + hips) * 4;
      // q * (sin(a/2), 0, 0, cos(a/2)): a tilt about the hips' x axis, which swings the feet ~1 m below.
      const s = Math.sin(angle / 2), c = Math.cos(angle / 2);
      const [x, y, z, w] = rotations.subarray(o, o + 4);
      rotations.set([w * s + x * c, y * c + z * s, z * c - y * s, w * c - x * s], o);
      return { rotations, translations: db.translations };
    };
    expect(measurePoseError(db.skeleton.parents, db.clips, db, tilted(2e-4)).overall.max).toBeGreaterThan(ERROR_THRESHOLD);
    expect(measurePoseError(db.skeleton.parents, db.clips, db, tilted(2e-5)).overall.max).toBeLessThan(ERROR_THRESHOLD);
  });

  it('the virtual-point error equals the six points measured one by one', () => {
    // The encoder's expansion (|p ± d c|² = |p|² + d²|c|² ± 2d p·c, larger side only) against the
    // definition: each point at ±3 cm along a local axis, placed by both transforms, the farthest pair.
    let seed = 7;
    const rand = (): number => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const unit = (q: Float64Array, at: number): void => {
      for (let k = 0; k < 4; k++) q[at + k] = rand();
      const n = Math.hypot(q[at], q[at + 1], q[at + 2], q[at + 3]);
      for (let k = 0; k < 4; k++) q[at + k] /= n;
    };
    const aRot = new Float64Array(4), bRot = new Float64Array(4), aPos = new Float64Array(3), bPos = new Float64Array(3);
    const pa = new Float64Array(3), pb = new Float64Array(3), axis = new Float64Array(3);
    for (let trial = 0; trial < 200; trial++) {
      unit(aRot, 0);
      // Half the trials nearly the same rotation (the encoder's case), half any two.
      if (trial % 2) { unit(bRot, 0); } else { for (let k = 0; k < 4; k++) bRot[k] = aRot[k] + 1e-4 * rand(); bRot.set(bRot.map((v) => v / Math.hypot(...bRot))); }
      for (let k = 0; k < 3; k++) { aPos[k] = rand(); bPos[k] = aPos[k] + (trial % 3 ? 1e-4 : 0.1) * rand(); }
      let want = 0;
      for (let k = 0; k < 6; k++) {
        axis.fill(0); axis[k >> 1] = k & 1 ? -VIRTUAL_POINT_DISTANCE : VIRTUAL_POINT_DISTANCE;
        quatRotateVec3(pa, 0, aRot, 0, axis, 0); quatRotateVec3(pb, 0, bRot, 0, axis, 0);
        want = Math.max(want, Math.hypot(aPos[0] + pa[0] - bPos[0] - pb[0], aPos[1] + pa[1] - bPos[1] - pb[1], aPos[2] + pa[2] - bPos[2] - pb[2]));
      }
      expect(virtualPointError(aRot, aPos, 0, bRot, bPos, 0)).toBeCloseTo(want, 12);
    }
  });

  it('a tighter bound costs more bytes and holds', () => {
    const db = smallBuiltin();
    const J = db.skeleton.names.length, c = db.clips[0];
    const poses = {
      parents: db.skeleton.parents, restOffsets: db.skeleton.offsets, frames: c.count,
      rotations: db.rotations.subarray(c.start * J * 4, (c.start + c.count) * J * 4),
      translations: db.translations.subarray(c.start * J * 3, (c.start + c.count) * J * 3),
    };
    const loose = encodeClip(poses, 1e-3), tight = encodeClip(poses, 1e-5);
    expect(tight.length).toBeGreaterThan(loose.length);
    const rot = new Float32Array(poses.rotations.length), pos = new Float32Array(poses.translations.length);
    decodeClip(tight, J, db.skeleton.offsets, c.count, rot, pos, 0);
    const e = measurePoseError(db.skeleton.parents, [{ start: 0, count: c.count }], poses, { rotations: rot, translations: pos });
    expect(e.overall.max).toBeLessThanOrEqual(1e-5);
  });
});

describe.skipIf(!HAS_MOCAP)('compact database: real captures (core)', () => {
  it('holds the bound on real mocap with mirroring, about 20x smaller', () => {
    if (!HAS_MOCAP) { console.log(MOCAP_SKIP_REASON); return; }
    const db = buildDatabase(loadBvhSources([join(MOCAP_DIR, 'core')]), { mirror: true });
    const { bytes, error } = encodeCompactDatabase(db);
    expect(error.overall.max).toBeLessThanOrEqual(ERROR_THRESHOLD);
    const loaded = decodeDatabase(bytes, 'core.mmdb');
    expect(measurePoseError(db.skeleton.parents, db.clips, db, loaded).overall.max).toBeLessThanOrEqual(ERROR_THRESHOLD);
    expect(bytes.length * 15).toBeLessThan(encodeDatabase(db).length);
  }, 60_000);
});
