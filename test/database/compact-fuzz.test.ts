/**
 * Fuzzing the compact decoder (docs/compact.md): damaged, truncated and hostile compact files must
 * give a one-line DatabaseFormatError naming the file, never another exception, a hang or a huge
 * allocation; a damaged file that does decode must be a consistent database.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/sources-node.js';
import type { Database } from '../../src/database/database.js';
import { DatabaseFormatError, checkDatabaseConsistency, decodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { encodeCompactDatabase } from '../../src/database/mmdb/encode-compact.js';
import { buildFile, parseFile, textField, type Parsed } from './mmdb-craft.js';

const DECODE_BUDGET_MS = 10_000;

// Two short built-in clips, mirrored: a compact file of a few kilobytes.
const sources = builtinSources().slice(0, 2).map((s) => ({ ...s, clip: { ...s.clip, frameCount: 40, rotations: s.clip.rotations.slice(0, 40 * 22 * 4), translations: s.clip.translations.slice(0, 40 * 22 * 3) } }));
const db: Database = buildDatabase(sources, { mirror: true });
const baseBytes = encodeCompactDatabase(db).bytes;
const baseParsed = parseFile(baseBytes);

function outcome(bytes: Uint8Array): { ok: true; db: Database } | { ok: false; error: DatabaseFormatError } {
  const t0 = performance.now();
  try {
    const out = decodeDatabase(bytes, 'fuzz.mmdb');
    return { ok: true, db: out };
  } catch (e) {
    if (!(e instanceof DatabaseFormatError)) throw new Error(`expected a DatabaseFormatError, got ${(e as Error)?.name}: ${(e as Error)?.message}`, { cause: e });
    expect(e.message.startsWith('fuzz.mmdb: ')).toBe(true);
    expect(e.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    return { ok: false, error: e };
  } finally {
    const ms = performance.now() - t0;
    if (ms > DECODE_BUDGET_MS) throw new Error(`decoding took ${ms.toFixed(0)} ms, over the ${DECODE_BUDGET_MS} ms budget`);
  }
}

function expectError(bytes: Uint8Array): DatabaseFormatError {
  const r = outcome(bytes);
  if (r.ok) throw new Error('expected decoding to fail, but it succeeded');
  return r.error;
}

function expectErrorOrConsistent(bytes: Uint8Array): void {
  const r = outcome(bytes);
  if (r.ok) checkDatabaseConsistency(r.db, 'decoded');
}

function clone(p: Parsed): Parsed {
  return { ...p, sections: p.sections.map((s) => ({ ...s, payload: s.payload.slice() })) };
}

describe('fuzzing the compact decoder', () => {
  it('the undamaged file decodes', () => {
    expect(outcome(baseBytes).ok).toBe(true);
  });

  it('random byte damage (CRCs not fixed) is always a DatabaseFormatError', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.nat(baseBytes.length - 1), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 6 }), (edits) => {
      const b = baseBytes.slice();
      for (const [at, x] of edits) b[at] ^= x;
      fc.pre(b.some((v, i) => v !== baseBytes[i]));
      expectError(b);
    }), { numRuns: 500 });
  });

  it('every truncation is refused as truncated', () => {
    fc.assert(fc.property(fc.nat(baseBytes.length - 1), (n) => {
      expect(expectError(baseBytes.slice(0, n)).code).toBe('truncated');
    }), { numRuns: 300 });
  });

  it('edits inside any section behind recomputed CRCs: an error or a consistent database', () => {
    fc.assert(fc.property(fc.nat(baseParsed.sections.length - 1), fc.array(fc.tuple(fc.nat(1 << 20), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }), (si, edits) => {
      const p = clone(baseParsed);
      const payload = p.sections[si].payload;
      fc.pre(payload.length > 0);
      for (const [at, x] of edits) payload[at % payload.length] ^= x;
      expectErrorOrConsistent(buildFile(p));
    }), { numRuns: 1500 });
  });

  it('edits of the compressed pose bytes behind recomputed CRCs: an error or a consistent database', () => {
    const ci = baseParsed.sections.findIndex((s) => s.tag === 'CPOS');
    fc.assert(fc.property(fc.array(fc.tuple(fc.nat(1 << 20), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), (edits) => {
      const p = clone(baseParsed);
      const payload = p.sections[ci].payload;
      // Past the counts and offsets fields: the clip blobs themselves.
      const from = 64;
      for (const [at, v] of edits) payload[from + (at % (payload.length - from))] = v;
      expectErrorOrConsistent(buildFile(p));
    }), { numRuns: 1500 });
  });

  it('hostile frame counts in META are refused before anything is allocated', () => {
    const p = clone(baseParsed);
    const meta = p.sections.find((s) => s.tag === 'META')!;
    // META: f64 fps field (8 + 8 bytes), then the u32 counts field: its first value is the frame count.
    new DataView(meta.payload.buffer, meta.payload.byteOffset).setUint32(16 + 8, 0xfffffff0, true);
    const e = expectError(buildFile(p));
    expect(e.message).toMatch(/frames/);
  });

  it('random clip tables are refused or decode consistently', () => {
    const ci = baseParsed.sections.findIndex((s) => s.tag === 'CLIP');
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 3 }), (v) => {
      const p = clone(baseParsed);
      p.sections[ci].payload = textField(JSON.stringify(v));
      expectErrorOrConsistent(buildFile(p));
    }), { numRuns: 300 });
  });

  it('a compact section in a version-1 file, or a version-2 file without its poses, is refused', () => {
    const v1 = clone(baseParsed);
    v1.version = 1;
    expect(expectError(buildFile(v1)).message).toMatch(/does not belong in a version 1 file/);
    const noPoses = clone(baseParsed);
    noPoses.sections = noPoses.sections.filter((s) => s.tag !== 'CPOS');
    expect(expectError(buildFile(noPoses)).code).toBe('missing-section');
  });

  it('shuffled sections still decode (order is free) and dropped optional ones too', () => {
    const p = clone(baseParsed);
    p.sections.reverse();
    expect(outcome(buildFile(p)).ok).toBe(true);
    const q = clone(baseParsed);
    q.sections = q.sections.filter((s) => s.tag !== 'cerr');
    expect(outcome(buildFile(q)).ok).toBe(true);
  });
});
