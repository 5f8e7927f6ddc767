/**
 * The consistency checks outside the file format: checkSearchableDatabase (what the search reads)
 * agrees with checkDatabaseConsistency on the search fields, ignores the rest, and stays linear on
 * hostile shapes.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Database } from '../../src/database/database.js';
import { DatabaseFormatError, checkDatabaseConsistency, checkSearchableDatabase, decodeDatabase, encodeDatabase, type DatabaseFormatErrorCode } from '../../src/database/mmdb/mmdb.js';
import { DEFAULT_SCHEMA, type FeatureSchema } from '../../src/features/schema.js';
import { cloneDatabase, makeRandomDatabase } from '../helpers/random-database.js';
import { makeFakeDb, rng } from '../helpers/fake-db.js';

function errorOf(check: () => void): DatabaseFormatError {
  try {
    check();
  } catch (e) {
    if (e instanceof DatabaseFormatError) return e;
    throw new Error(`expected a DatabaseFormatError, got ${(e as Error)?.name}: ${(e as Error)?.message}`, { cause: e });
  }
  throw new Error('expected the check to fail');
}

const db = makeRandomDatabase(31, { frames: 60, joints: 6, clips: 3, tags: 4, mirrored: true });
const S = db.stride;

describe('checkSearchableDatabase', () => {
  it('accepts every database checkDatabaseConsistency accepts (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 32 }), (seed, frames, joints, tags) => {
        const d = makeRandomDatabase(seed, { frames, joints, clips: Math.min(frames, 3), tags });
        checkDatabaseConsistency(d);
        checkSearchableDatabase(d);
      }),
      { numRuns: 100 },
    );
  });

  it('accepts the minimal databases the search tests build (no poses, a schema that does not match dims)', () => {
    const r = rng(5);
    for (const dims of [1, 3, 4, 9]) {
      const fake = makeFakeDb(Float32Array.from({ length: 50 * dims }, () => r() * 4 - 2), dims, { normalize: true, clipLengths: [20, 30] });
      checkSearchableDatabase(fake, 'fake');
      expect(() => checkDatabaseConsistency(fake, 'fake')).toThrow(DatabaseFormatError);
    }
  });

  const cases: Array<[string, (d: Database) => void, DatabaseFormatErrorCode, string, RegExp]> = [
    ['NaN in features', (d) => { d.features[3 * S + 5] = NaN; }, 'not-finite', 'features', /'features' value at frame 3, column 5 is NaN/],
    ['Infinity in features', (d) => { d.features[0] = -Infinity; }, 'not-finite', 'features', /is -Infinity/],
    ['non-zero feature padding', (d) => { d.features[2 * S - 1] = 1; }, 'inconsistent', 'features', /padding value at frame 1, column 27 is 1, expected 0/],
    ['feature matrix one row short', (d) => { d.features = d.features.slice(0, -S); }, 'inconsistent', 'features', /has 1,652 values, expected 1,680 \(60 frames x stride 28\)/],
    ['candidate flag 2', (d) => { d.candidates[7] = 2; }, 'inconsistent', 'candidates', /frame 7 has candidate flag 2, expected 0 or 1/],
    ['candidates one short', (d) => { d.candidates = d.candidates.slice(1); }, 'inconsistent', 'candidates', /'candidates' has 59 values, expected 60/],
    ['tag bit without a tag', (d) => { d.tagBits[9] |= 1 << 4; }, 'inconsistent', 'tags', /frame 9 has tag bits 0x1\d but only 4 tags exist/],
    ['33 tags', (d) => { d.tagNames = Array.from({ length: 33 }, (_, i) => `t${i}`); }, 'inconsistent', 'tags', /33 tags, at most 32/],
    ['duplicate tag names', (d) => { d.tagNames[1] = d.tagNames[0]; }, 'inconsistent', 'tags', /duplicate tag name/],
    ['tag bits one short', (d) => { d.tagBits = d.tagBits.slice(1); }, 'inconsistent', 'tags', /'tagBits' has 59 values/],
    ['NaN mean', (d) => { d.mean[4] = NaN; }, 'not-finite', 'normalisation', /'mean' value of column 4 is NaN/],
    ['zero scale', (d) => { d.scale[2] = 0; }, 'inconsistent', 'normalisation', /scale of column 2 is 0, expected > 0/],
    ['padding scale 2', (d) => { d.scale[S - 1] = 2; }, 'inconsistent', 'normalisation', /padding column 27 has mean 0 and scale 2/],
    ['mean one short', (d) => { d.mean = d.mean.slice(1); }, 'inconsistent', 'normalisation', /'mean' has 27 values, expected 28/],
    ['stride not dims rounded up to 4', (d) => { d.stride = 32; }, 'inconsistent', 'meta', /stride is 32, expected 28/],
    ['fractional frame count', (d) => { d.frameCount = 59.5; }, 'inconsistent', 'meta', /'frameCount' is 59.5, expected an integer/],
    ['negative frame count', (d) => { d.frameCount = -1; }, 'inconsistent', 'meta', /'frameCount' is -1/],
  ];

  it.each(cases)('refuses %s, as checkDatabaseConsistency does', (_, tamper, code, section, message) => {
    const t = cloneDatabase(db);
    tamper(t);
    const e = errorOf(() => checkSearchableDatabase(t, 'search.mmdb'));
    expect([e.code, e.section]).toEqual([code, section]);
    expect(e.message).toMatch(/^search\.mmdb: section '\w+' \([A-Z]{4}\): /);
    expect(e.message).toMatch(message);
    const full = errorOf(() => checkDatabaseConsistency(t, 'search.mmdb'));
    expect(full.code).toBe(code);
  });

  it('refuses dims of 0 or not an integer (the full check derives dims from the schema)', () => {
    for (const dims of [0, 2.5, -4, NaN]) {
      const e = errorOf(() => checkSearchableDatabase({ ...cloneDatabase(db), dims }));
      expect([e.code, e.section]).toEqual(['inconsistent', 'meta']);
      expect(e.message).toContain("'dims' is");
    }
  });

  it('does not look at what the search does not read', () => {
    const t = cloneDatabase(db);
    t.rotations[0] = NaN;
    t.rawFeatures[1] = Infinity;
    t.fps = 0;
    t.skeleton = { ...t.skeleton, names: [] };
    (t.schema as { groups: unknown }).groups = 'nonsense';
    checkSearchableDatabase(t);
    expect(() => checkDatabaseConsistency(t)).toThrow(DatabaseFormatError);
  });

  it('costs a fraction of the full check on a large database', () => {
    const big = makeRandomDatabase(32, { frames: 40_000, joints: 22, clips: 50, tags: 4 });
    const time = (f: () => void): number => { const t0 = performance.now(); f(); return performance.now() - t0; };
    const best = (f: () => void): number => Math.min(time(f), time(f), time(f));
    const search = best(() => checkSearchableDatabase(big));
    const full = best(() => checkDatabaseConsistency(big));
    console.log(`[check] 40k frames x 22 joints: checkSearchableDatabase ${search.toFixed(1)} ms, checkDatabaseConsistency ${full.toFixed(1)} ms`);
    expect(search).toBeLessThan(full);
  });
});

describe('non-finite values', () => {
  // 61 frames x 5 joints: 915 translations, a length four-at-a-time reads leave a tail of 3 in.
  const odd = makeRandomDatabase(33, { frames: 61, joints: 5, clips: 2, tags: 1 });
  const n = odd.translations.length;

  it('are found wherever they are (each of a group of four, the tail), at their index', () => {
    expect(n % 4).toBe(3);
    for (const i of [0, 1, 2, 3, 4, 7, n - 4, n - 3, n - 2, n - 1]) {
      for (const bad of [NaN, Infinity, -Infinity]) {
        const t = cloneDatabase(odd);
        t.translations[i] = bad;
        const e = errorOf(() => checkDatabaseConsistency(t, 'odd.mmdb'));
        expect(e.code).toBe('not-finite');
        const frame = Math.floor(i / 15), joint = Math.floor(i / 3) % 5;
        expect(e.message).toContain(`'translations' value ${i % 3} of frame ${frame}, joint ${joint} is ${String(bad)}`);
      }
    }
  });

  it('the largest finite float32 values are finite (their sums are taken in float64)', () => {
    const t = cloneDatabase(odd);
    for (let i = 0; i < 8; i++) t.translations[i] = (i % 2 ? -1 : 1) * 3.4028234663852886e38;
    // Far outside any skeleton, but finite: the finite check passes it on (other checks may not).
    try { checkDatabaseConsistency(t, 'odd.mmdb'); } catch (e) { expect((e as DatabaseFormatError).code).not.toBe('not-finite'); }
  });
});

describe('checkDatabaseConsistency on hostile shapes', () => {
  it('many joints named by many schema bones stay linear (bones are looked up in a map)', () => {
    const J = 60_000;
    const names = Array.from({ length: J }, (_, j) => (j === 0 ? 'Hips' : `j${j}`));
    const schema: FeatureSchema = { ...DEFAULT_SCHEMA, groups: [{ name: 'all', kind: 'bonePosition', bones: names.slice(1), weight: 1 }] };
    const d = makeRandomDatabase(33, { frames: 0, joints: J, clips: 0, tags: 0, schema });
    // makeRandomDatabase names its joints itself: use its names in the schema.
    d.schema = { ...schema, groups: [{ name: 'all', kind: 'bonePosition', bones: d.skeleton.names.slice(1), weight: 1 }] };
    const t0 = performance.now();
    checkDatabaseConsistency(d);
    const bytes = encodeDatabase(d);
    const back = decodeDatabase(bytes);
    const ms = performance.now() - t0;
    expect(back.schema.groups[0].bones!.length).toBe(J - 1);
    console.log(`[check] ${J} joints x ${J - 1} schema bones: check + encode + decode ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(60_000); // a hang guard, not a speed target: a quadratic lookup takes many minutes here
  });

  it('refuses a joint whose name JavaScript objects already have as a schema bone', () => {
    const d = makeRandomDatabase(34, { frames: 10, joints: 3, clips: 1, tags: 0 });
    (d.skeleton.names as string[])[2] = 'toString';
    checkDatabaseConsistency(d); // a joint may be called that...
    d.schema = structuredClone(d.schema);
    d.schema.groups.push({ name: 'odd', kind: 'bonePosition', bones: ['toString'], weight: 1 });
    const e = errorOf(() => checkDatabaseConsistency(d)); // ...but resolveSchemaBone would not find it
    expect([e.code, e.section]).toEqual(['inconsistent', 'schema']);
    expect(e.message).toContain('joint "toString" cannot be a schema bone');
  });
});
