/**
 * Frame rates in the format: the database rate in META is bounded like `build --fps`, and the
 * source rate of each resampled clip is kept in the optional 'rate' section, which files written
 * before it existed (and databases without resampled clips) simply do not have.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Database } from '../../src/database/database.js';
import { checkDatabaseConsistency, decodeDatabase, encodeDatabase, inspectDatabase, MAX_FPS, MIN_FPS } from '../../src/database/mmdb/mmdb.js';
import { cloneDatabase, makeRandomDatabase } from '../helpers/random-database.js';
import { buildFile, encodeError, expectCode, expectSameDatabase, field, parseFile, sameTyped, withSection } from './mmdb-craft.js';

const small = makeRandomDatabase(21, { frames: 40, joints: 5, clips: 4, tags: 2, mirrored: true });
const smallBytes = encodeDatabase(small);

function withRates(db: Database, rates: Array<number | undefined>): Database {
  const t = cloneDatabase(db);
  t.clips.forEach((c, i) => { if (rates[i] !== undefined) c.sourceFps = rates[i]; });
  return t;
}

const resampled = withRates(small, [60, undefined, 120, 60]);
const resampledBytes = encodeDatabase(resampled);

/** The f64 payload of a 'rate' section with these values. */
function ratePayload(values: number[]): Uint8Array {
  return field('f64', new Uint8Array(Float64Array.from(values).buffer));
}

describe('the database rate in META', () => {
  const withFps = (fps: number): Uint8Array => withSection(smallBytes, 'META', (_, dv) => { dv.setFloat64(8, fps, true); });

  it.each([
    ['1e308', 1e308, 'inconsistent'],
    ['5e-324 (the smallest subnormal)', 5e-324, 'inconsistent'],
    ['0', 0, 'inconsistent'],
    ['-0', -0, 'inconsistent'],
    ['negative', -30, 'inconsistent'],
    ['just below MIN_FPS', MIN_FPS - 1e-9, 'inconsistent'],
    ['just above MAX_FPS', MAX_FPS * (1 + 1e-12), 'inconsistent'],
    ['NaN', NaN, 'not-finite'],
    ['Infinity', Infinity, 'not-finite'],
    ['-Infinity', -Infinity, 'not-finite'],
  ] as const)('refuses fps %s with a clear message, in decode and inspect', (_, fps, code) => {
    const bytes = withFps(fps);
    const e = expectCode(bytes, code, 'meta');
    expect(e.message).toMatch(/^test\.mmdb: section 'meta' \(META\): fps is \S+/);
    if (code === 'inconsistent') expect(e.message).toContain(`expected a rate in [${MIN_FPS}, ${MAX_FPS}] frames per second`);
    expect(() => inspectDatabase(bytes, 'test.mmdb')).toThrow(e.message);
  });

  it('accepts the bounds themselves and a fractional rate', () => {
    for (const fps of [MIN_FPS, MAX_FPS, 29.97]) {
      const db = { ...cloneDatabase(small), fps };
      expect(decodeDatabase(encodeDatabase(db)).fps).toBe(fps);
    }
  });

  it('the encoder refuses the same rates before writing', () => {
    for (const fps of [1e308, 5e-324, 0, -1, 1001, 0.5]) {
      const e = encodeError({ ...cloneDatabase(small), fps });
      expect([e.code, e.section]).toEqual(['inconsistent', 'meta']);
    }
    expect(encodeError({ ...cloneDatabase(small), fps: NaN }).code).toBe('not-finite');
  });
});

describe('per-clip source rates (the optional rate section)', () => {
  it('round-trip, deterministically, and only resampled clips carry sourceFps', () => {
    const back = decodeDatabase(resampledBytes, 'r.mmdb');
    expectSameDatabase(back, resampled);
    expect(back.clips.map((c) => c.sourceFps)).toEqual([60, undefined, 120, 60]);
    expect(back.clips.map((c) => 'sourceFps' in c)).toEqual([true, false, true, true]);
    expect(sameTyped(encodeDatabase(back), resampledBytes)).toBe(true);
    expect(sameTyped(encodeDatabase(cloneDatabase(resampled)), resampledBytes)).toBe(true);
  });

  it('are a known optional section after the required ones, and absent when no clip was resampled', () => {
    const tags = (b: Uint8Array): string[] => inspectDatabase(b).sections.map((s) => s.tag);
    expect(tags(smallBytes)).toEqual(['META', 'SKEL', 'CLIP', 'POSE', 'ROOT', 'CONT', 'CAND', 'TAGS', 'SCHM', 'NORM', 'FRAW', 'FEAT']);
    expect(tags(resampledBytes)).toEqual([...tags(smallBytes), 'rate']);
    const rate = inspectDatabase(resampledBytes).sections.find((s) => s.tag === 'rate')!;
    expect(rate).toMatchObject({ name: 'sourceRates', known: true, length: 8 + 8 * small.clips.length });
    // Everything before it is what a database without source rates encodes to, byte for byte.
    expect(sameTyped(resampledBytes.subarray(0, 12), smallBytes.subarray(0, 12))).toBe(true);
    expect(new DataView(resampledBytes.buffer).getUint32(12, true)).toBe(13); // the section count (and so the header CRC) differs
    expect(sameTyped(resampledBytes.subarray(24, smallBytes.length), smallBytes.subarray(24))).toBe(true);
  });

  it('a reader that skips the section (an older build) still gets a complete database', () => {
    const p = parseFile(resampledBytes);
    p.sections = p.sections.filter((s) => s.tag !== 'rate');
    const back = decodeDatabase(buildFile(p));
    expect(back).toEqual(small);
    // and the section may come first: order is free
    const q = parseFile(resampledBytes);
    q.sections.unshift(q.sections.pop()!);
    expect(decodeDatabase(buildFile(q))).toEqual(resampled);
  });

  it('a file written before the section existed still loads, and re-encodes to the same bytes', () => {
    const old = new Uint8Array(readFileSync(new URL('./fixtures/v1-before-source-rates.mmdb.bin', import.meta.url)));
    const info = inspectDatabase(old, 'old.mmdb');
    expect(info.version).toBe(1);
    expect(info.generator).toBe('motionmatch 0.1.0 (before the rate section)');
    expect(info.sections.map((s) => s.tag)).not.toContain('rate');
    const db = decodeDatabase(old, 'old.mmdb');
    expect([db.frameCount, db.clips.length, db.fps]).toEqual([24, 3, 30]);
    expect(db.clips.map((c) => c.loop)).toContain(true); // loop was always stored (CLIP)
    expect(db.clips.every((c) => c.sourceFps === undefined)).toBe(true);
    expect(sameTyped(encodeDatabase(db, { generator: info.generator }), old)).toBe(true);
  });

  it.each([
    ['one value too many', () => ratePayload([60, 0, 0, 0, 0]), 'inconsistent', /'sourceFps' has 5 values, expected 4 \(one per clip, 4 clips\)/],
    ['one value too few', () => ratePayload([60, 0, 0]), 'inconsistent', /has 3 values, expected 4/],
    ['NaN', () => ratePayload([60, NaN, 0, 0]), 'not-finite', /source rate of clip 1 is NaN/],
    ['Infinity', () => ratePayload([Infinity, 0, 0, 0]), 'not-finite', /source rate of clip 0 is Infinity/],
    ['1e308', () => ratePayload([1e308, 0, 0, 0]), 'inconsistent', /source rate of clip 0 is 1e\+308, expected 0 \(not resampled\) or a rate in \[1, 1000\]/],
    ['5e-324', () => ratePayload([0, 0, 5e-324, 0]), 'inconsistent', /source rate of clip 2 is 5e-324/],
    ['negative', () => ratePayload([0, -60, 0, 0]), 'inconsistent', /source rate of clip 1 is -60/],
    ['f32 instead of f64', () => field('f32', new Uint8Array(16)), 'bad-section', /field 'sourceFps' has type f32, expected f64/],
    ['a second field', () => { const a = ratePayload([60, 0, 0, 0]); const b = new Uint8Array(a.length + 16); b.set(a); return b; }, 'inconsistent', /unexpected bytes after the last field/],
  ] as const)('a damaged rate section is refused: %s', (_, payload, code, message) => {
    const e = expectCode(withSection(resampledBytes, 'rate', () => payload()), code, 'sourceRates');
    expect(e.message).toMatch(/^test\.mmdb: section 'sourceRates' \(rate\): /);
    expect(e.message).toMatch(message);
  });

  it('a duplicated rate section is refused', () => {
    const p = parseFile(resampledBytes);
    p.sections.push({ ...p.sections[p.sections.length - 1] });
    expectCode(buildFile(p), 'duplicate-section', 'sourceRates');
  });

  it('the consistency check refuses source rates the section could not hold', () => {
    for (const bad of [0, -1, NaN, Infinity, 1e308, 5e-324, 1001, '60' as unknown as number]) {
      const t = withRates(small, [bad]);
      const e = encodeError(t);
      expect([e.code, e.section]).toEqual(['inconsistent', 'clips']);
      expect(e.message).toContain('sourceFps is');
      expect(() => checkDatabaseConsistency(t)).toThrow(/clip 0 .*: sourceFps is/);
    }
  });
});
