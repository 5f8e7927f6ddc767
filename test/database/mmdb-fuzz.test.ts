/**
 * Fuzzing the decoder: damaged files of every kind (flipped bytes, truncations, random section
 * lengths, payload edits behind recomputed CRCs, random META counts, random JSON, shuffled
 * sections) must give a DatabaseFormatError, never another exception, never a hang; and a damaged
 * file that does decode must be a consistent database. Each decode must finish within a budget.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Database } from '../../src/database/database.js';
import { DatabaseFormatError, checkDatabaseConsistency, decodeDatabase, encodeDatabase, inspectDatabase } from '../../src/database/mmdb/mmdb.js';
import { crc32 } from '../../src/util/crc32.js';
import { cloneDatabase, makeRandomDatabase } from '../helpers/random-database.js';
import { SECTION_HEADER, buildFile, parseFile, textField, type Parsed } from './mmdb-craft.js';

/** Longest a single decode of these small files may take (a few ms normally; generous for loaded CI machines). */
// A hang guard per decode, not a speed target (a decode of these small files takes about a millisecond).
const DECODE_BUDGET_MS = 10_000;

function withRates(db: Database): Database {
  const t = cloneDatabase(db);
  t.clips.forEach((c, i) => { if (i % 2 === 0) c.sourceFps = 60 * (i + 1); });
  return t;
}

const base = withRates(makeRandomDatabase(41, { frames: 16, joints: 4, clips: 3, tags: 2, mirrored: true }));
const baseBytes = encodeDatabase(base);
const baseParsed = parseFile(baseBytes);
const tags = baseParsed.sections.map((s) => s.tag);

type Outcome = { ok: true; db: Database } | { ok: false; error: DatabaseFormatError };

/** Decodes within the time budget; anything thrown but a DatabaseFormatError fails the property. */
function outcome(bytes: Uint8Array): Outcome {
  const t0 = performance.now();
  let result: Outcome;
  try {
    result = { ok: true, db: decodeDatabase(bytes, 'fuzz.mmdb') };
  } catch (e) {
    if (!(e instanceof DatabaseFormatError)) {
      throw new Error(`expected a DatabaseFormatError, got ${(e as Error)?.name}: ${(e as Error)?.message}`, { cause: e });
    }
    expect(e.message.startsWith('fuzz.mmdb: ')).toBe(true);
    expect(e.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/); // one line, no terminal escapes
    result = { ok: false, error: e };
  }
  const ms = performance.now() - t0;
  if (ms > DECODE_BUDGET_MS) throw new Error(`decoding took ${ms.toFixed(0)} ms, over the ${DECODE_BUDGET_MS} ms budget`);
  return result;
}

/** A damaged file either fails cleanly or decodes to a database that is consistent and re-encodes. */
function expectErrorOrConsistent(bytes: Uint8Array): void {
  const r = outcome(bytes);
  if (r.ok) {
    checkDatabaseConsistency(r.db, 'decoded');
    encodeDatabase(r.db);
  }
}

function expectError(bytes: Uint8Array): DatabaseFormatError {
  const r = outcome(bytes);
  if (r.ok) throw new Error('expected decoding to fail, but it succeeded');
  return r.error;
}

function clone(p: Parsed): Parsed {
  return { ...p, sections: p.sections.map((s) => ({ ...s, payload: s.payload.slice() })) };
}

/** Interesting u32 values: boundaries, the real counts, and random ones. */
const u32 = fc.oneof(
  fc.constantFrom(0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 24, 28, 32, 33, 0x7fffffff, 0x80000000, 0xfffffff8, 0xffffffff),
  fc.integer({ min: 0, max: 0xffffffff }),
  fc.integer({ min: 0, max: 4096 }),
);

describe('fuzzing the decoder', () => {
  it('random byte damage (CRCs not fixed) is always a DatabaseFormatError', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(baseBytes.length - 1), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 8 }), (edits) => {
        const b = baseBytes.slice();
        for (const [at, x] of edits) b[at] ^= x;
        fc.pre(b.some((v, i) => v !== baseBytes[i]));
        expectError(b);
      }),
      { numRuns: 1500 },
    );
  });

  it('every truncation is refused as truncated', () => {
    fc.assert(
      fc.property(fc.nat(baseBytes.length - 1), (n) => {
        expect(expectError(baseBytes.slice(0, n)).code).toBe('truncated');
      }),
      { numRuns: 500 },
    );
  });

  it('random section lengths, with the section CRC recomputed, are refused', () => {
    const info = inspectDatabase(baseBytes);
    fc.assert(
      fc.property(fc.nat(info.sections.length - 1), u32, fc.oneof(fc.constant(0), u32), (i, low, high) => {
        const s = info.sections[i];
        const h = s.offset - SECTION_HEADER;
        const b = baseBytes.slice();
        const dv = new DataView(b.buffer);
        dv.setUint32(h + 8, low, true);
        dv.setUint32(h + 12, high, true);
        const len = high * 2 ** 32 + low;
        fc.pre(len !== s.length);
        // The CRC the decoder would compute over whatever bytes the new length covers.
        const end = Math.min(b.length, s.offset + len);
        dv.setUint32(h + 16, crc32(b, s.offset, end, crc32(b, h, h + 16)), true);
        expectError(b);
      }),
      { numRuns: 1500 },
    );
  });

  it('payload edits behind recomputed CRCs: an error, or a consistent database', () => {
    const edit = fc.oneof(
      // overwrite a u32 at an aligned offset (field lengths, field types, counts, array values)
      fc.record({ kind: fc.constant('u32' as const), at: fc.nat(), value: u32 }),
      // flip bits in a byte
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), value: fc.integer({ min: 1, max: 255 }) }),
      // cut the payload short, or extend it with junk
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), value: fc.constant(0) }),
      fc.record({ kind: fc.constant('grow' as const), at: fc.integer({ min: 1, max: 40 }), value: fc.integer({ min: 0, max: 255 }) }),
    );
    fc.assert(
      fc.property(fc.nat(tags.length - 1), fc.array(edit, { minLength: 1, maxLength: 4 }), (i, edits) => {
        const p = clone(baseParsed);
        const s = p.sections[i];
        for (const e of edits) {
          const n = s.payload.length;
          if (e.kind === 'u32' && n >= 4) new DataView(s.payload.buffer, s.payload.byteOffset).setUint32((e.at % (n >> 2)) * 4, e.value, true);
          else if (e.kind === 'flip' && n > 0) s.payload[e.at % n] ^= e.value;
          else if (e.kind === 'cut') s.payload = s.payload.slice(0, n > 0 ? e.at % n : 0);
          else if (e.kind === 'grow') { const q = new Uint8Array(n + e.at).fill(e.value); q.set(s.payload); s.payload = q; }
        }
        expectErrorOrConsistent(buildFile(p));
      }),
      { numRuns: 3000 },
    );
  });

  it('random META counts never allocate or loop beyond the file: an error, fast', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(6), u32), { minLength: 1, maxLength: 7 }), (sets) => {
        const p = clone(baseParsed);
        const meta = p.sections.find((s) => s.tag === 'META')!;
        const dv = new DataView(meta.payload.buffer, meta.payload.byteOffset);
        const before = meta.payload.slice();
        for (const [k, v] of sets) dv.setUint32(24 + 4 * k, v, true); // counts data starts at 24
        fc.pre(meta.payload.some((v, i) => v !== before[i]));
        // Counts that disagree with the data are refused (the dims count may move within its stride).
        expectErrorOrConsistent(buildFile(p));
      }),
      { numRuns: 1500 },
    );
  });

  it('random fps values in META: an error unless in [1, 1000]', () => {
    fc.assert(
      fc.property(fc.double(), (fps) => {
        const p = clone(baseParsed);
        new DataView(p.sections[0].payload.buffer).setFloat64(8, fps, true);
        const r = outcome(buildFile(p));
        expect(r.ok).toBe(fps >= 1 && fps <= 1000);
        if (r.ok) expect(r.db.fps).toBe(fps);
      }),
      { numRuns: 500 },
    );
  });

  it('random JSON in every JSON field: an error, or a consistent database', () => {
    // [section tag, index of the JSON field among the section's fields]
    const jsonFields: Array<[string, number]> = [['SKEL', 0], ['SKEL', 5], ['CLIP', 0], ['TAGS', 0], ['SCHM', 0]];
    const fieldsOf = (payload: Uint8Array): Uint8Array[] => {
      const out: Uint8Array[] = [];
      const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
      for (let pos = 0; pos < payload.length;) {
        const n = dv.getUint32(pos, true);
        const next = pos + 8 + ((n + 7) & ~7);
        out.push(payload.slice(pos, next));
        pos = next;
      }
      return out;
    };
    const concat = (parts: Uint8Array[]): Uint8Array => {
      const out = new Uint8Array(parts.reduce((n, q) => n + q.length, 0));
      let o = 0;
      for (const q of parts) { out.set(q, o); o += q.length; }
      return out;
    };
    const jsonText = fc.oneof(
      fc.json({ maxDepth: 4 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      // the original text, slightly damaged
      fc.tuple(fc.nat(), fc.string({ maxLength: 3 })).map(([at, s]) => ({ at, s })),
    );
    fc.assert(
      fc.property(fc.constantFrom(...jsonFields), jsonText, ([tag, k], text) => {
        const p = clone(baseParsed);
        const s = p.sections.find((x) => x.tag === tag)!;
        const fields = fieldsOf(s.payload);
        let t: string;
        if (typeof text === 'string') t = text;
        else {
          const orig = new TextDecoder().decode(fields[k].subarray(8, 8 + new DataView(fields[k].buffer).getUint32(0, true)));
          const at = text.at % (orig.length + 1);
          t = orig.slice(0, at) + text.s + orig.slice(at + 1);
        }
        fields[k] = textField(t);
        s.payload = concat(fields);
        expectErrorOrConsistent(buildFile(p));
      }),
      { numRuns: 1500 },
    );
  });

  it('shuffled, dropped, duplicated and foreign sections: an error, or the same database', () => {
    const foreign = fc.record({
      tag: fc.constantFrom('xtra', 'XTRA', 'rate', 'META', 'zz_9', 'Rate'),
      payload: fc.uint8Array({ maxLength: 40 }),
    });
    fc.assert(
      fc.property(
        fc.shuffledSubarray(tags.map((_, i) => i), { minLength: 0, maxLength: tags.length }),
        fc.array(fc.nat(tags.length - 1), { maxLength: 2 }),
        fc.array(foreign, { maxLength: 2 }),
        (order, dups, extra) => {
          const p = clone(baseParsed);
          const sections = [...order.map((i) => p.sections[i]), ...dups.map((i) => ({ ...p.sections[i] }))];
          for (const e of extra) sections.splice(e.payload.length % (sections.length + 1), 0, { tag: e.tag, flags: 0, reserved: 0, payload: e.payload });
          const r = outcome(buildFile({ ...p, sections }));
          if (r.ok) {
            // Only a reordering plus skippable unknown lowercase sections can still decode: to the
            // same database, without the source rates when the optional rate section was dropped.
            const rates = sections.filter((x) => x.tag === 'rate');
            if (rates.length === 1 && rates[0] === p.sections[tags.indexOf('rate')]) expect(r.db).toEqual(base);
            else if (rates.length === 0) expect(r.db).toEqual({ ...base, clips: base.clips.map(({ sourceFps: _, ...c }) => c) });
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a valid header followed by random bytes is refused', () => {
    const header = baseBytes.slice(0, 24);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 0, max: 40 }), (junk, count) => {
        const b = new Uint8Array(24 + junk.length);
        b.set(header);
        b.set(junk, 24);
        const dv = new DataView(b.buffer);
        dv.setUint32(12, count, true);
        dv.setUint32(20, crc32(b, 0, 20), true);
        expectError(b);
      }),
      { numRuns: 1000 },
    );
  });

  it('names from the file cannot break a message into lines or into terminal commands', () => {
    const evil = 'a\nb\r\u001b[31mred\u2028' + 'x'.repeat(200);
    const dupTags = cloneDatabase(base);
    dupTags.tagNames = [evil, evil];
    dupTags.clips.forEach((c) => { c.tags = []; });
    dupTags.tagBits.fill(0);
    const e = expectError(encodeDatabase(dupTags, { validate: false }));
    expect(e.message).toContain("duplicate tag name 'a\\u000ab\\u000d\\u001b[31mred\\u2028" + 'x'.repeat(60 - 13) + "...'");
    const badClip = cloneDatabase(base);
    badClip.clips[1].name = evil;
    badClip.clips[1].start -= 1; // overlaps clip 0
    badClip.clips[1].count += 1;
    const e2 = expectError(encodeDatabase(badClip, { validate: false }));
    expect(e2.message).toMatch(/clip 1 'a\\u000ab/);
    expect(e2.message.split('\n')).toHaveLength(1);
  });

  it('deeply nested JSON is refused before it is parsed', () => {
    const p = clone(baseParsed);
    const s = p.sections.find((x) => x.tag === 'SCHM')!;
    const deep = '{"groups":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
    s.payload = textField(deep);
    const e = expectError(buildFile(p));
    expect([e.code, e.section]).toEqual(['bad-section', 'schema']);
    expect(e.message).toContain("field 'schema' nests 100,001 levels deep, at most 32 are allowed");
    // brackets inside strings do not count
    const bracketDb = cloneDatabase(base);
    bracketDb.tagNames = ['['.repeat(40), '{'.repeat(40) + '\\"'];
    bracketDb.clips.forEach((c) => { c.tags = c.tags.map((t) => bracketDb.tagNames[base.tagNames.indexOf(t)]); });
    expect(decodeDatabase(encodeDatabase(bracketDb)).tagNames).toEqual(bracketDb.tagNames);
  });
});
