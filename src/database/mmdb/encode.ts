/**
 * Writing a Database as a `.mmdb` file (docs/mmdb-format.md). Deterministic: the same database
 * always gives the same bytes (no timestamps; JSON with sorted keys; zero padding; fixed section
 * order). Pure and browser-safe.
 */
import type { Database } from '../database.js';
import { checkDatabaseConsistency } from '../database-check.js';
import { crc32 } from '../../util/crc32.js';
import {
  BONE_ROLES,
  DatabaseFormatError,
  FIELD_HEADER_BYTES,
  FIELD_TYPES,
  MMDB_FORMAT_VERSION,
  MMDB_HEADER_BYTES,
  MMDB_MAGIC,
  MMDB_MAX_FILE_BYTES,
  MMDB_SECTION_HEADER_BYTES,
  NAME_OF,
  align8,
  fmt,
  sectionLabel,
  typedArrayByteCopy,
  type FieldType,
  type SectionTag,
} from './format.js';

export interface EncodeDatabaseOptions {
  /**
   * Free-form build information stored in META (e.g. "motionmatch 0.1.0 build-db"). Empty by
   * default. Do not put timestamps here if you want reproducible files.
   */
  generator?: string;
  /** Run checkDatabaseConsistency first (default true). Only tests should turn this off. */
  validate?: boolean;
}

export interface Field {
  type: FieldType;
  data: Uint8Array;
}

export interface SectionOut {
  tag: SectionTag;
  fields: Field[];
}

const utf8Encoder = new TextEncoder();

/** JSON with object keys sorted, so that equal values always give identical bytes. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return '[' + v.map((x) => (x === undefined || typeof x === 'function' ? 'null' : canonicalJson(x))).join(',') + ']';
  if (ArrayBuffer.isView(v)) return canonicalJson(Array.from(v as unknown as ArrayLike<number>));
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined && typeof o[k] !== 'function' && typeof o[k] !== 'symbol')
    .sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(o[k])).join(',') + '}';
}

function bytesOf(a: Float32Array | Float64Array | Int32Array | Uint32Array): Uint8Array {
  if (typedArrayByteCopy()) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.byteLength);
  const dv = new DataView(out.buffer);
  if (a instanceof Float32Array) for (let i = 0; i < a.length; i++) dv.setFloat32(i * 4, a[i], true);
  else if (a instanceof Float64Array) for (let i = 0; i < a.length; i++) dv.setFloat64(i * 8, a[i], true);
  else if (a instanceof Int32Array) for (let i = 0; i < a.length; i++) dv.setInt32(i * 4, a[i], true);
  else for (let i = 0; i < a.length; i++) dv.setUint32(i * 4, a[i], true);
  return out;
}

// Arrays of the wrong element type are converted (reachable only with validate: false or odd input).
export function f32(a: ArrayLike<number> | undefined): Field {
  return { type: 'f32', data: bytesOf(a instanceof Float32Array ? a : Float32Array.from(a ?? [])) };
}
export function f64(a: ArrayLike<number> | undefined): Field {
  return { type: 'f64', data: bytesOf(a instanceof Float64Array ? a : Float64Array.from(a ?? [])) };
}
export function i32(a: ArrayLike<number> | undefined): Field {
  return { type: 'i32', data: bytesOf(a instanceof Int32Array ? a : Int32Array.from(a ?? [])) };
}
export function u32(a: ArrayLike<number> | undefined): Field {
  return { type: 'u32', data: bytesOf(a instanceof Uint32Array ? a : Uint32Array.from(a ?? [])) };
}
export function u8(a: ArrayLike<number> | undefined): Field {
  return { type: 'u8', data: a instanceof Uint8Array ? a : Uint8Array.from(a ?? []) };
}
export function utf8(text: string): Field {
  return { type: 'utf8', data: utf8Encoder.encode(text) };
}

/**
 * The optional `rate` section: each clip's source frame rate, 0 for clips stored at their own rate.
 * Absent when no clip was resampled, so such databases encode exactly as before the section existed.
 */
export function sourceRatesSection(db: Database): SectionOut[] {
  if (!db.clips.some((c) => c.sourceFps !== undefined)) return [];
  return [{ tag: 'rate', fields: [f64(db.clips.map((c) => c.sourceFps ?? 0))] }];
}

/** META, SKEL and CLIP: the sections float32 and compact files share. */
export function headSections(db: Database, generator: string): SectionOut[] {
  const sk = db.skeleton;
  const roles: Record<string, number> = {};
  for (const r of BONE_ROLES) roles[r] = db.roles[r];
  // sourceFps lives in its own optional section, which older readers skip (see sourceRatesSection).
  const clips = db.clips.map((c) => ({
    name: c.name,
    source: c.source,
    start: c.start,
    count: c.count,
    loop: c.loop,
    mirrored: c.mirrored,
    tags: c.tags,
  }));
  const counts = [db.frameCount, sk.names.length, sk.endSiteParents.length, db.clips.length, db.tagNames.length, db.dims, db.stride];

  return [
    { tag: 'META', fields: [f64([db.fps]), u32(counts), utf8(generator)] },
    {
      tag: 'SKEL',
      fields: [utf8(canonicalJson(sk.names)), i32(sk.parents), f64(sk.offsets), i32(sk.endSiteParents), f64(sk.endSiteOffsets), utf8(canonicalJson(roles))],
    },
    { tag: 'CLIP', fields: [utf8(canonicalJson(clips))] },
  ];
}

/**
 * Serialises `db` as a .mmdb file. Deterministic: the same database always gives the same bytes
 * (no timestamps; JSON with sorted keys; zero padding). Throws DatabaseFormatError when `db` is not
 * internally consistent (see checkDatabaseConsistency), so that a written file always decodes, and
 * when it would not fit the format's limits (4 GiB per field, MMDB_MAX_FILE_BYTES per file).
 */
export function encodeDatabase(db: Database, options: EncodeDatabaseOptions = {}): Uint8Array {
  if (options.validate !== false) checkDatabaseConsistency(db, 'encodeDatabase');
  const sections: SectionOut[] = [
    ...headSections(db, options.generator ?? ''),
    { tag: 'POSE', fields: [f32(db.rotations), f32(db.translations)] },
    { tag: 'ROOT', fields: [f32(db.rootPositions), f32(db.rootRotations)] },
    { tag: 'CONT', fields: [u8(db.contacts)] },
    { tag: 'CAND', fields: [u8(db.candidates)] },
    { tag: 'TAGS', fields: [utf8(canonicalJson(db.tagNames)), u32(db.tagBits)] },
    { tag: 'SCHM', fields: [utf8(canonicalJson(db.schema))] },
    { tag: 'NORM', fields: [f32(db.mean), f32(db.scale)] },
    { tag: 'FRAW', fields: [f32(db.rawFeatures)] },
    { tag: 'FEAT', fields: [f32(db.features)] },
    ...sourceRatesSection(db),
  ];
  checkFieldSizes(sections);
  return writeContainer(sections);
}

/** Every field fits its u32 length. */
export function checkFieldSizes(sections: readonly SectionOut[]): void {
  for (const s of sections) {
    for (const f of s.fields) {
      if (f.data.length > 0xffffffff) {
        throw new DatabaseFormatError('too-large', 'encodeDatabase', `${sectionLabel(s.tag)}: a field of ${fmt(f.data.length)} bytes exceeds the 4 GiB field limit`, NAME_OF[s.tag]);
      }
    }
  }
}

function sectionLength(s: SectionOut): number {
  return s.fields.reduce((n, f) => n + FIELD_HEADER_BYTES + align8(f.data.length), 0);
}

/** Lays out the sections (CRCs, padding) as a file of `version`. */
export function writeContainer(sections: SectionOut[], version: number = MMDB_FORMAT_VERSION): Uint8Array {
  const lengths = sections.map(sectionLength);
  const total = lengths.reduce((n, len) => n + MMDB_SECTION_HEADER_BYTES + align8(len), MMDB_HEADER_BYTES);
  if (total > MMDB_MAX_FILE_BYTES) {
    throw new DatabaseFormatError('too-large', 'encodeDatabase', `the database needs ${fmt(total)} bytes, more than the ${fmt(MMDB_MAX_FILE_BYTES)} a .mmdb file may have`);
  }
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);

  out.set(MMDB_MAGIC, 0);
  dv.setUint32(8, version, true);
  dv.setUint32(12, sections.length, true);
  dv.setUint32(16, 0, true);
  dv.setUint32(20, crc32(out, 0, 20), true);

  let pos = MMDB_HEADER_BYTES;
  sections.forEach((s, i) => {
    const len = lengths[i];
    for (let k = 0; k < 4; k++) out[pos + k] = s.tag.charCodeAt(k);
    dv.setUint32(pos + 4, 0, true);
    dv.setUint32(pos + 8, len % 0x100000000, true);
    dv.setUint32(pos + 12, Math.floor(len / 0x100000000), true);
    const start = pos + MMDB_SECTION_HEADER_BYTES;
    let p = start;
    for (const f of s.fields) {
      dv.setUint32(p, f.data.length, true);
      dv.setUint32(p + 4, FIELD_TYPES[f.type], true);
      out.set(f.data, p + FIELD_HEADER_BYTES);
      p += FIELD_HEADER_BYTES + align8(f.data.length);
    }
    // The CRC covers the tag, flags and length (first 16 header bytes), then the payload.
    dv.setUint32(pos + 16, crc32(out, start, start + len, crc32(out, pos, pos + 16)), true);
    dv.setUint32(pos + 20, 0, true);
    pos = start + align8(len);
  });
  return out;
}
