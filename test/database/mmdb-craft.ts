/**
 * Crafting .mmdb files for tests: an independent reading of the container layout in
 * docs/mmdb-format.md (parse, rebuild with correct CRCs, replace one section), typed fields, and
 * assertions on decoding errors.
 */
import { expect } from 'vitest';
import type { Database } from '../../src/database/database.js';
import { DatabaseFormatError, MMDB_MAGIC, decodeDatabase, encodeDatabase, type DatabaseFormatErrorCode } from '../../src/database/mmdb/mmdb.js';
import { crc32 } from '../../src/util/crc32.js';
import { cloneDatabase } from '../helpers/random-database.js';


export interface Sec {
  tag: string;
  flags: number;
  reserved: number;
  payload: Uint8Array;
}

export interface Parsed {
  version: number;
  flags: number;
  sections: Sec[];
}

export const HEADER = 24;
export const SECTION_HEADER = 24;
export const pad8 = (n: number): number => (n + 7) & ~7;

export function parseFile(bytes: Uint8Array): Parsed {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(8, true), count = dv.getUint32(12, true), flags = dv.getUint32(16, true);
  const sections: Sec[] = [];
  let pos = HEADER;
  for (let i = 0; i < count; i++) {
    const tag = String.fromCharCode(...bytes.subarray(pos, pos + 4));
    const len = dv.getUint32(pos + 8, true) + dv.getUint32(pos + 12, true) * 2 ** 32;
    sections.push({ tag, flags: dv.getUint32(pos + 4, true), reserved: dv.getUint32(pos + 20, true), payload: bytes.slice(pos + SECTION_HEADER, pos + SECTION_HEADER + len) });
    pos += SECTION_HEADER + pad8(len);
  }
  expect(pos).toBe(bytes.length);
  return { version, flags, sections };
}

/** Writes a container with correct CRCs (whatever the contents). */
export function buildFile(p: Parsed, padByte = 0): Uint8Array {
  const total = HEADER + p.sections.reduce((n, s) => n + SECTION_HEADER + pad8(s.payload.length), 0);
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  out.set(MMDB_MAGIC, 0);
  dv.setUint32(8, p.version, true);
  dv.setUint32(12, p.sections.length, true);
  dv.setUint32(16, p.flags, true);
  dv.setUint32(20, crc32(out, 0, 20), true);
  let pos = HEADER;
  for (const s of p.sections) {
    for (let k = 0; k < 4; k++) out[pos + k] = s.tag.charCodeAt(k);
    dv.setUint32(pos + 4, s.flags, true);
    dv.setUint32(pos + 8, s.payload.length, true);
    dv.setUint32(pos + 12, 0, true);
    dv.setUint32(pos + 20, s.reserved, true);
    out.set(s.payload, pos + SECTION_HEADER);
    out.fill(padByte, pos + SECTION_HEADER + s.payload.length, pos + SECTION_HEADER + pad8(s.payload.length));
    // CRC: tag, flags, length (16 header bytes), then the payload.
    const c = crc32(out, pos + SECTION_HEADER, pos + SECTION_HEADER + s.payload.length, crc32(out, pos, pos + 16));
    dv.setUint32(pos + 16, c, true);
    pos += SECTION_HEADER + pad8(s.payload.length);
  }
  return out;
}

export function withSection(bytes: Uint8Array, tag: string, edit: (payload: Uint8Array, dv: DataView) => Uint8Array | void): Uint8Array {
  const p = parseFile(bytes);
  const s = p.sections.find((x) => x.tag === tag)!;
  const replaced = edit(s.payload, new DataView(s.payload.buffer, s.payload.byteOffset, s.payload.byteLength));
  if (replaced) s.payload = replaced;
  return buildFile(p);
}

/** A typed field as the built-in payloads store them: u32 byte length, u32 type, data, zero padding to 8. */
export const FIELD_TYPE = { u8: 1, i32: 2, u32: 3, f32: 4, f64: 5, utf8: 6 } as const;
export function field(type: keyof typeof FIELD_TYPE, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + pad8(data.length));
  const dv = new DataView(out.buffer);
  dv.setUint32(0, data.length, true);
  dv.setUint32(4, FIELD_TYPE[type], true);
  out.set(data, 8);
  return out;
}
export const textField = (text: string): Uint8Array => field('utf8', new TextEncoder().encode(text));

export type AnyTyped = Float32Array | Float64Array | Int32Array | Uint32Array | Uint8Array;

export function sameTyped(a: AnyTyped, b: AnyTyped): boolean {
  return a.constructor === b.constructor && a.length === b.length &&
    Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

/** Field-by-field equality; typed arrays compared bytewise (vitest's deep equality is slow on millions of elements). */
export function expectSameDatabase(actual: Database, expected: Database): void {
  const arrays = ['rotations', 'translations', 'rootPositions', 'rootRotations', 'contacts', 'candidates', 'tagBits', 'rawFeatures', 'features', 'mean', 'scale'] as const;
  const skArrays = ['parents', 'offsets', 'endSiteParents', 'endSiteOffsets'] as const;
  for (const k of arrays) if (!sameTyped(actual[k], expected[k])) throw new Error(`'${k}' differs`);
  for (const k of skArrays) if (!sameTyped(actual.skeleton[k], expected.skeleton[k])) throw new Error(`'skeleton.${k}' differs`);
  const rest = (db: Database): Record<string, unknown> => {
    const o: Record<string, unknown> = { ...db, skeleton: { names: db.skeleton.names } };
    for (const k of arrays) delete o[k];
    return o;
  };
  expect(rest(actual)).toEqual(rest(expected));
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  expect(Object.keys(actual.skeleton).sort()).toEqual(Object.keys(expected.skeleton).sort());
}

export function decodeError(bytes: Uint8Array | ArrayBuffer, source = 'test.mmdb'): DatabaseFormatError {
  try {
    decodeDatabase(bytes, source);
  } catch (e) {
    if (e instanceof DatabaseFormatError) return e;
    throw new Error(`expected a DatabaseFormatError, got ${(e as Error)?.name}: ${(e as Error)?.message}`, { cause: e });
  }
  throw new Error('expected decoding to fail, but it succeeded');
}

export function expectCode(bytes: Uint8Array | ArrayBuffer, code: DatabaseFormatErrorCode, section?: string): DatabaseFormatError {
  const e = decodeError(bytes);
  if (e.code !== code || (section !== undefined && e.section !== section)) {
    throw new Error(`expected ${code}${section ? ` in '${section}'` : ''}, got ${e.code} in '${e.section}': ${e.message}`);
  }
  expect(e.message.startsWith('test.mmdb: ')).toBe(true);
  return e;
}

/** Encodes a tampered database bypassing the encoder's own check, so the decoder must catch it. */
export function encodeTampered(db: Database, tamper: (db: Database) => void): Uint8Array {
  const t = cloneDatabase(db);
  tamper(t);
  return encodeDatabase(t, { validate: false });
}

export function encodeError(db: Database): DatabaseFormatError {
  try {
    encodeDatabase(db);
  } catch (e) {
    if (e instanceof DatabaseFormatError) return e;
    throw e;
  }
  throw new Error('expected encoding to fail');
}

