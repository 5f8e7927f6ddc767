/**
 * The `.mmdb` database file format: a small header followed by CRC-protected, 8-byte aligned
 * sections. See docs/mmdb-format.md for the byte layout, versioning policy and validation rules.
 *
 * Pure and browser-safe: no fs, no Buffer (DataView, TextEncoder, TextDecoder only).
 *
 * Decoding never trusts the input: every length is bounds-checked before it is used, every section
 * is CRC-checked, and the decoded database is checked for internal consistency (array lengths, clip
 * ranges, finite floats, unit quaternions, valid skeleton, ...). Every problem is reported as a
 * DatabaseFormatError naming the source, the section and what is wrong.
 */
import type { ClipRange, Database } from './database.js';
import type { Skeleton } from '../anim/skeleton.js';
import { validateSkeleton } from '../anim/skeleton.js';
import type { BoneRole, FeatureSchema } from '../features/schema.js';
import { paddedStride, schemaDims } from '../features/schema.js';
import { validateSchema } from '../features/schema-validate.js';
import { resolveSchemaBone } from '../features/schema.js';
import { crc32, formatCrc } from '../util/crc32.js';

// ---------------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------------

/** The format version this build writes and the only one it reads. */
export const MMDB_FORMAT_VERSION = 1;

/** "MMDB\r\n\x1a\n": the CR/LF pair catches text-mode conversions, 0x1a stops `type` on DOS. */
export const MMDB_MAGIC: readonly number[] = Object.freeze([0x4d, 0x4d, 0x44, 0x42, 0x0d, 0x0a, 0x1a, 0x0a]);

/** File header: magic[8], u32 version, u32 section count, u32 flags, u32 header CRC. */
export const MMDB_HEADER_BYTES = 24;
/** Section header: tag[4], u32 flags, u64 payload length, u32 CRC, u32 reserved. */
export const MMDB_SECTION_HEADER_BYTES = 24;
/** Payloads (and every field inside the built-in payloads) start at multiples of this. */
export const MMDB_ALIGN = 8;

/** Required sections, in the order the encoder writes them. */
const SECTION_DEFS = [
  { tag: 'META', name: 'meta' },
  { tag: 'SKEL', name: 'skeleton' },
  { tag: 'CLIP', name: 'clips' },
  { tag: 'POSE', name: 'poses' },
  { tag: 'ROOT', name: 'root' },
  { tag: 'CONT', name: 'contacts' },
  { tag: 'CAND', name: 'candidates' },
  { tag: 'TAGS', name: 'tags' },
  { tag: 'SCHM', name: 'schema' },
  { tag: 'NORM', name: 'normalisation' },
  { tag: 'FRAW', name: 'rawFeatures' },
  { tag: 'FEAT', name: 'features' },
] as const;

type SectionTag = (typeof SECTION_DEFS)[number]['tag'];
type SectionName = (typeof SECTION_DEFS)[number]['name'];

const NAME_OF: Record<SectionTag, SectionName> = Object.fromEntries(SECTION_DEFS.map((d) => [d.tag, d.name])) as Record<SectionTag, SectionName>;

/** Every BoneRole, in file order. The type assertion below fails to compile if BoneRole grows. */
const BONE_ROLES = ['hips', 'leftFoot', 'rightFoot', 'leftToe', 'rightToe'] as const satisfies readonly BoneRole[];
type MissingRole = Exclude<BoneRole, (typeof BONE_ROLES)[number]>;
const _allRolesListed: [MissingRole] extends [never] ? true : never = true;
void _allRolesListed;

/** Tag bits are a u32 per frame. */
const MAX_TAGS = 32;
/** |q|^2 must be within this of 1 (float32 storage of normalised quaternions is ~1e-7 off). */
const QUAT_NORM2_TOLERANCE = 2e-3;
/** features must equal (raw - mean) / scale within tol * (1 + (|raw| + |mean|) / scale). */
const FEATURE_TOLERANCE = 1e-4;

const DEFAULT_SOURCE = 'mmdb data';

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

export type DatabaseFormatErrorCode =
  | 'bad-magic'
  | 'unsupported-version'
  | 'truncated'
  | 'crc-mismatch'
  | 'bad-section'
  | 'missing-section'
  | 'duplicate-section'
  | 'inconsistent'
  | 'not-finite';

/** Anything wrong with a .mmdb file (or with a Database about to be encoded). */
export class DatabaseFormatError extends Error {
  override readonly name = 'DatabaseFormatError';
  readonly code: DatabaseFormatErrorCode;
  /** Section name ('features', 'poses', ...) or, for an unknown section, its tag; undefined for the header/file. */
  readonly section: string | undefined;
  /** File path or description of the bytes, as given to the decoder. */
  readonly source: string;

  constructor(code: DatabaseFormatErrorCode, source: string, detail: string, section?: string) {
    super(`${source}: ${detail}`);
    this.code = code;
    this.source = source;
    this.section = section;
  }
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
let useByteCopy = LITTLE_ENDIAN_HOST;

/**
 * @internal Testing hook: force the portable DataView path for typed arrays (what big-endian hosts
 * use) instead of byte copies. Returns the previous setting.
 */
export function _setTypedArrayByteCopy(enabled: boolean): boolean {
  const prev = useByteCopy;
  useByteCopy = enabled && LITTLE_ENDIAN_HOST;
  return prev;
}

const align8 = (n: number): number => Math.ceil(n / MMDB_ALIGN) * MMDB_ALIGN;

/** 1048576 -> "1,048,576" (locale-independent). */
function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function tagText(bytes: Uint8Array, at: number): string {
  let s = '';
  for (let i = 0; i < 4; i++) {
    const b = bytes[at + i];
    s += b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : '\\x' + b.toString(16).padStart(2, '0');
  }
  return s;
}

function isKnownTag(tag: string): tag is SectionTag {
  return Object.prototype.hasOwnProperty.call(NAME_OF, tag);
}

/** "section 'poses' (POSE)" / "section 'xyzw'". */
function sectionLabel(tag: string): string {
  return isKnownTag(tag) ? `section '${NAME_OF[tag]}' (${tag})` : `section '${tag}'`;
}

function sectionName(tag: string): string {
  return isKnownTag(tag) ? NAME_OF[tag] : tag;
}

function hexBytes(bytes: Uint8Array, start: number, end: number): string {
  const out: string[] = [];
  for (let i = start; i < Math.min(end, bytes.length); i++) out.push(bytes[i].toString(16).padStart(2, '0'));
  return out.join(' ');
}

function describeNumber(v: number): string {
  return Number.isNaN(v) ? 'NaN' : String(v);
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** JSON with object keys sorted, so that equal values always give identical bytes. */
function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return '[' + v.map((x) => (x === undefined || typeof x === 'function' ? 'null' : canonicalJson(x))).join(',') + ']';
  if (ArrayBuffer.isView(v)) return canonicalJson(Array.from(v as unknown as ArrayLike<number>));
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined && typeof o[k] !== 'function' && typeof o[k] !== 'symbol')
    .sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(o[k])).join(',') + '}';
}

// ---------------------------------------------------------------------------------------------
// Consistency checks shared by the encoder (before writing) and the decoder (after reading)
// ---------------------------------------------------------------------------------------------

class Checker {
  constructor(readonly source: string) {}

  fail(code: DatabaseFormatErrorCode, tag: SectionTag | undefined, detail: string): never {
    throw new DatabaseFormatError(code, this.source, tag ? `${sectionLabel(tag)}: ${detail}` : detail, tag ? NAME_OF[tag] : undefined);
  }

  length(tag: SectionTag, field: string, arr: { length: number } | undefined | null, expected: number, what: string): void {
    const n = arr == null ? -1 : arr.length;
    if (n !== expected) this.fail('inconsistent', tag, `'${field}' has ${n < 0 ? 'no' : fmt(n)} values, expected ${fmt(expected)} (${what})`);
  }

  finite(tag: SectionTag, field: string, arr: ArrayLike<number>, where: (i: number) => string): void {
    for (let i = 0; i < arr.length; i++) {
      const v = arr[i];
      if (v - v !== 0) this.fail('not-finite', tag, `'${field}' value ${where(i)} is ${describeNumber(v)}`);
    }
  }

  unitQuats(tag: SectionTag, field: string, arr: ArrayLike<number>, where: (q: number) => string): void {
    for (let q = 0, i = 0; i + 3 < arr.length; q++, i += 4) {
      const x = arr[i], y = arr[i + 1], z = arr[i + 2], w = arr[i + 3];
      const n2 = x * x + y * y + z * z + w * w;
      if (!(Math.abs(n2 - 1) <= QUAT_NORM2_TOLERANCE)) {
        this.fail('inconsistent', tag, `'${field}' quaternion ${where(q)} is not unit length (|q| = ${Math.sqrt(n2).toPrecision(6)})`);
      }
    }
  }

  integer(tag: SectionTag, field: string, v: unknown, min: number, max: number): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.fail('inconsistent', tag, `'${field}' is ${describeValue(v)}, expected an integer in [${fmt(min)}, ${fmt(max)}]`);
    }
    return v;
  }
}

function describeValue(v: unknown): string {
  if (typeof v === 'number') return describeNumber(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : String(v);
}

/**
 * Throws DatabaseFormatError unless `db` is internally consistent: everything the decoder checks
 * after reading a file (array lengths agree with frames/joints/stride, clips in order and in range,
 * contact/candidate/tag bits valid, finite floats, unit quaternions, valid skeleton and schema,
 * dims == schemaDims(schema), stride == paddedStride(dims), features == (raw - mean) / scale).
 * The encoder runs it before writing (unless told not to).
 */
export function checkDatabaseConsistency(db: Database, source = 'database'): void {
  const c = new Checker(source);

  // META
  if (typeof db.fps !== 'number' || !Number.isFinite(db.fps)) c.fail('not-finite', 'META', `fps is ${describeValue(db.fps)}`);
  if (!(db.fps > 0)) c.fail('inconsistent', 'META', `fps is ${db.fps}, expected > 0`);
  const N = c.integer('META', 'frameCount', db.frameCount, 0, 0xffffffff);

  // SKEL
  const sk = db.skeleton;
  if (!sk || !Array.isArray(sk.names)) c.fail('inconsistent', 'SKEL', 'the skeleton has no joint name list');
  for (let i = 0; i < sk.names.length; i++) {
    if (typeof sk.names[i] !== 'string') c.fail('inconsistent', 'SKEL', `joint name ${i} is ${describeValue(sk.names[i])}, expected a string`);
  }
  const J = sk.names.length;
  if (!(sk.parents instanceof Int32Array) || !(sk.offsets instanceof Float64Array) || !(sk.endSiteParents instanceof Int32Array) || !(sk.endSiteOffsets instanceof Float64Array)) {
    c.fail('inconsistent', 'SKEL', 'skeleton arrays must be Int32Array (parents) and Float64Array (offsets)');
  }
  c.finite('SKEL', 'offsets', sk.offsets, (i) => `${i % 3} of joint ${Math.floor(i / 3)}`);
  c.finite('SKEL', 'endSiteOffsets', sk.endSiteOffsets, (i) => `${i % 3} of end site ${Math.floor(i / 3)}`);
  try {
    validateSkeleton(sk);
  } catch (e) {
    c.fail('inconsistent', 'SKEL', `invalid skeleton: ${(e as Error).message}`);
  }
  if (!db.roles || typeof db.roles !== 'object') c.fail('inconsistent', 'SKEL', 'roles are missing');
  for (const key of Object.keys(db.roles)) {
    if (!(BONE_ROLES as readonly string[]).includes(key)) c.fail('inconsistent', 'SKEL', `unknown bone role '${key}'`);
  }
  for (const role of BONE_ROLES) c.integer('SKEL', `roles.${role}`, db.roles[role], -1, J - 1);

  // TAGS (before clips: clip tags must be known tags)
  if (!Array.isArray(db.tagNames)) c.fail('inconsistent', 'TAGS', 'tag names are missing');
  const T = db.tagNames.length;
  if (T > MAX_TAGS) c.fail('inconsistent', 'TAGS', `${T} tags, at most ${MAX_TAGS} fit in the per-frame bits`);
  const tagSet = new Set<string>();
  for (const t of db.tagNames) {
    if (typeof t !== 'string') c.fail('inconsistent', 'TAGS', `tag name ${describeValue(t)} is not a string`);
    if (tagSet.has(t)) c.fail('inconsistent', 'TAGS', `duplicate tag name '${t}'`);
    tagSet.add(t);
  }
  c.length('TAGS', 'tagBits', db.tagBits, N, 'one per frame');
  const tagMask = T === 32 ? 0xffffffff : (1 << T) - 1;
  for (let f = 0; f < N; f++) {
    const bits = db.tagBits[f];
    if ((bits & ~tagMask) !== 0) c.fail('inconsistent', 'TAGS', `frame ${f} has tag bits 0x${(bits >>> 0).toString(16)} but only ${T} tags exist`);
  }

  // CLIP
  if (!Array.isArray(db.clips)) c.fail('inconsistent', 'CLIP', 'clip list is missing');
  let prevEnd = 0;
  db.clips.forEach((clip, i) => {
    const what = `clip ${i}${clip && typeof clip.name === 'string' ? ` '${clip.name}'` : ''}`;
    if (!clip || typeof clip !== 'object') c.fail('inconsistent', 'CLIP', `${what} is not an object`);
    if (typeof clip.name !== 'string') c.fail('inconsistent', 'CLIP', `${what}: name is ${describeValue(clip.name)}, expected a string`);
    if (typeof clip.source !== 'string') c.fail('inconsistent', 'CLIP', `${what}: source is ${describeValue(clip.source)}, expected a string`);
    if (typeof clip.loop !== 'boolean') c.fail('inconsistent', 'CLIP', `${what}: loop is ${describeValue(clip.loop)}, expected a boolean`);
    if (typeof clip.mirrored !== 'boolean') c.fail('inconsistent', 'CLIP', `${what}: mirrored is ${describeValue(clip.mirrored)}, expected a boolean`);
    if (!Array.isArray(clip.tags)) c.fail('inconsistent', 'CLIP', `${what}: tags is ${describeValue(clip.tags)}, expected an array`);
    for (const t of clip.tags) {
      if (typeof t !== 'string' || !tagSet.has(t)) c.fail('inconsistent', 'CLIP', `${what}: tag ${describeValue(t)} is not one of the database's tag names`);
    }
    c.integer('CLIP', `${what} start`, clip.start, 0, 0xffffffff);
    c.integer('CLIP', `${what} count`, clip.count, 1, 0xffffffff);
    if (clip.start < prevEnd) c.fail('inconsistent', 'CLIP', `${what} starts at frame ${clip.start}, before the previous clip ends (${prevEnd}): clips must be in order and must not overlap`);
    if (clip.start + clip.count > N) c.fail('inconsistent', 'CLIP', `${what} covers frames [${clip.start}, ${clip.start + clip.count}) but the database has ${fmt(N)} frames`);
    prevEnd = clip.start + clip.count;
  });

  // POSE
  c.length('POSE', 'rotations', db.rotations, N * J * 4, `${fmt(N)} frames x ${J} joints x 4`);
  c.length('POSE', 'translations', db.translations, N * J * 3, `${fmt(N)} frames x ${J} joints x 3`);
  const fj = (i: number, k: number): string => `${i % k} of frame ${Math.floor(i / (k * J))}, joint ${Math.floor(i / k) % J}`;
  c.finite('POSE', 'rotations', db.rotations, (i) => fj(i, 4));
  c.finite('POSE', 'translations', db.translations, (i) => fj(i, 3));
  c.unitQuats('POSE', 'rotations', db.rotations, (q) => `of frame ${Math.floor(q / J)}, joint ${q % J}`);

  // ROOT
  c.length('ROOT', 'rootPositions', db.rootPositions, N * 3, `${fmt(N)} frames x 3`);
  c.length('ROOT', 'rootRotations', db.rootRotations, N * 4, `${fmt(N)} frames x 4`);
  c.finite('ROOT', 'rootPositions', db.rootPositions, (i) => `${i % 3} of frame ${Math.floor(i / 3)}`);
  c.finite('ROOT', 'rootRotations', db.rootRotations, (i) => `${i % 4} of frame ${Math.floor(i / 4)}`);
  c.unitQuats('ROOT', 'rootRotations', db.rootRotations, (q) => `of frame ${q}`);

  // CONT, CAND
  c.length('CONT', 'contacts', db.contacts, N, 'one per frame');
  for (let f = 0; f < N; f++) if (!(db.contacts[f] <= 3)) c.fail('inconsistent', 'CONT', `frame ${f} has contact bits ${db.contacts[f]}, expected 0..3`);
  c.length('CAND', 'candidates', db.candidates, N, 'one per frame');
  for (let f = 0; f < N; f++) {
    const v = db.candidates[f];
    if (v !== 0 && v !== 1) c.fail('inconsistent', 'CAND', `frame ${f} has candidate flag ${v}, expected 0 or 1`);
  }

  // SCHM
  checkSchema(c, db);
  const D = schemaDims(db.schema);
  if (db.dims !== D) c.fail('inconsistent', 'META', `dims is ${describeValue(db.dims)} but the schema has ${D} dimensions`);
  const S = paddedStride(D);
  if (db.stride !== S) c.fail('inconsistent', 'META', `stride is ${describeValue(db.stride)}, expected ${S} (${D} dims padded to a multiple of 4)`);

  // NORM
  c.length('NORM', 'mean', db.mean, S, 'one per feature column');
  c.length('NORM', 'scale', db.scale, S, 'one per feature column');
  c.finite('NORM', 'mean', db.mean, (i) => `of column ${i}`);
  c.finite('NORM', 'scale', db.scale, (i) => `of column ${i}`);
  for (let d = 0; d < S; d++) {
    if (!(db.scale[d] > 0)) c.fail('inconsistent', 'NORM', `scale of column ${d} is ${db.scale[d]}, expected > 0`);
    if (d >= D && (db.mean[d] !== 0 || db.scale[d] !== 1)) {
      c.fail('inconsistent', 'NORM', `padding column ${d} has mean ${db.mean[d]} and scale ${db.scale[d]}, expected 0 and 1`);
    }
  }

  // FRAW, FEAT
  const rowCol = (i: number): string => `at frame ${Math.floor(i / S)}, column ${i % S}`;
  c.length('FRAW', 'rawFeatures', db.rawFeatures, N * S, `${fmt(N)} frames x stride ${S}`);
  c.finite('FRAW', 'rawFeatures', db.rawFeatures, rowCol);
  c.length('FEAT', 'features', db.features, N * S, `${fmt(N)} frames x stride ${S}`);
  c.finite('FEAT', 'features', db.features, rowCol);
  const { rawFeatures: raw, features: feat, mean, scale } = db;
  for (let f = 0, row = 0; f < N; f++, row += S) {
    for (let d = 0; d < D; d++) {
      const r = raw[row + d], m = mean[d], s = scale[d], v = feat[row + d];
      const expected = (r - m) / s;
      if (!(Math.abs(v - expected) <= FEATURE_TOLERANCE * (1 + (Math.abs(r) + Math.abs(m)) / s))) {
        c.fail('inconsistent', 'FEAT', `value ${rowCol(row + d)} is ${v} but (raw - mean) / scale = ${expected}`);
      }
    }
    for (let d = D; d < S; d++) {
      if (feat[row + d] !== 0) c.fail('inconsistent', 'FEAT', `padding value ${rowCol(row + d)} is ${feat[row + d]}, expected 0`);
    }
  }
}

function checkSchema(c: Checker, db: Database): void {
  const schema = db.schema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) c.fail('inconsistent', 'SCHM', 'the schema is not an object');
  try {
    validateSchema(schema, 'feature schema');
  } catch (e) {
    c.fail('inconsistent', 'SCHM', (e as Error).message);
  }
  // Every bone must resolve (a role this skeleton has, or a joint name), as feature extraction needs.
  for (const g of schema.groups) {
    for (const b of g.bones ?? []) {
      if (typeof b !== 'string' || (!(BONE_ROLES as readonly string[]).includes(b) && !db.skeleton.names.includes(b))) {
        c.fail('inconsistent', 'SCHM', `group '${g.name}': bone ${describeValue(b)} is neither a bone role (${BONE_ROLES.join(', ')}) nor a joint of the skeleton`);
      }
      try {
        resolveSchemaBone(b, db.skeleton, db.roles);
      } catch (e) {
        c.fail('inconsistent', 'SCHM', `group '${g.name}': ${(e as Error).message}`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

export interface EncodeDatabaseOptions {
  /**
   * Free-form build information stored in META (e.g. "motionmatch 0.1.0 build-db"). Empty by
   * default. Do not put timestamps here if you want reproducible files.
   */
  generator?: string;
  /** Run checkDatabaseConsistency first (default true). Only tests should turn this off. */
  validate?: boolean;
}

/**
 * Field element types. Every field inside a built-in payload is: u32 byte length, u32 type, the
 * data, zero padding to a multiple of 8 (so the data of every field is 8-byte aligned).
 */
const FIELD_TYPES = { u8: 1, i32: 2, u32: 3, f32: 4, f64: 5, utf8: 6 } as const;
type FieldType = keyof typeof FIELD_TYPES;
const FIELD_TYPE_NAMES: Record<number, FieldType> = Object.fromEntries(Object.entries(FIELD_TYPES).map(([k, v]) => [v, k as FieldType]));
const FIELD_HEADER_BYTES = 8;

interface Field {
  type: FieldType;
  data: Uint8Array;
}

interface SectionOut {
  tag: SectionTag;
  fields: Field[];
}

function bytesOf(a: Float32Array | Float64Array | Int32Array | Uint32Array): Uint8Array {
  if (useByteCopy) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.byteLength);
  const dv = new DataView(out.buffer);
  if (a instanceof Float32Array) for (let i = 0; i < a.length; i++) dv.setFloat32(i * 4, a[i], true);
  else if (a instanceof Float64Array) for (let i = 0; i < a.length; i++) dv.setFloat64(i * 8, a[i], true);
  else if (a instanceof Int32Array) for (let i = 0; i < a.length; i++) dv.setInt32(i * 4, a[i], true);
  else for (let i = 0; i < a.length; i++) dv.setUint32(i * 4, a[i], true);
  return out;
}

// Arrays of the wrong element type are converted (reachable only with validate: false or odd input).
function f32(a: ArrayLike<number> | undefined): Field {
  return { type: 'f32', data: bytesOf(a instanceof Float32Array ? a : Float32Array.from(a ?? [])) };
}
function f64(a: ArrayLike<number> | undefined): Field {
  return { type: 'f64', data: bytesOf(a instanceof Float64Array ? a : Float64Array.from(a ?? [])) };
}
function i32(a: ArrayLike<number> | undefined): Field {
  return { type: 'i32', data: bytesOf(a instanceof Int32Array ? a : Int32Array.from(a ?? [])) };
}
function u32(a: ArrayLike<number> | undefined): Field {
  return { type: 'u32', data: bytesOf(a instanceof Uint32Array ? a : Uint32Array.from(a ?? [])) };
}
function u8(a: ArrayLike<number> | undefined): Field {
  return { type: 'u8', data: a instanceof Uint8Array ? a : Uint8Array.from(a ?? []) };
}
function utf8(text: string): Field {
  return { type: 'utf8', data: utf8Encoder.encode(text) };
}

/**
 * Serialises `db` as a .mmdb file. Deterministic: the same database always gives the same bytes
 * (no timestamps; JSON with sorted keys; zero padding). Throws DatabaseFormatError when `db` is not
 * internally consistent (see checkDatabaseConsistency), so that a written file always decodes.
 */
export function encodeDatabase(db: Database, options: EncodeDatabaseOptions = {}): Uint8Array {
  if (options.validate !== false) checkDatabaseConsistency(db, 'encodeDatabase');
  const sk = db.skeleton;
  const roles: Record<string, number> = {};
  for (const r of BONE_ROLES) roles[r] = db.roles[r];
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

  const sections: SectionOut[] = [
    { tag: 'META', fields: [f64([db.fps]), u32(counts), utf8(options.generator ?? '')] },
    {
      tag: 'SKEL',
      fields: [utf8(canonicalJson(sk.names)), i32(sk.parents), f64(sk.offsets), i32(sk.endSiteParents), f64(sk.endSiteOffsets), utf8(canonicalJson(roles))],
    },
    { tag: 'CLIP', fields: [utf8(canonicalJson(clips))] },
    { tag: 'POSE', fields: [f32(db.rotations), f32(db.translations)] },
    { tag: 'ROOT', fields: [f32(db.rootPositions), f32(db.rootRotations)] },
    { tag: 'CONT', fields: [u8(db.contacts)] },
    { tag: 'CAND', fields: [u8(db.candidates)] },
    { tag: 'TAGS', fields: [utf8(canonicalJson(db.tagNames)), u32(db.tagBits)] },
    { tag: 'SCHM', fields: [utf8(canonicalJson(db.schema))] },
    { tag: 'NORM', fields: [f32(db.mean), f32(db.scale)] },
    { tag: 'FRAW', fields: [f32(db.rawFeatures)] },
    { tag: 'FEAT', fields: [f32(db.features)] },
  ];
  for (const s of sections) {
    for (const f of s.fields) {
      if (f.data.length > 0xffffffff) {
        throw new DatabaseFormatError('inconsistent', 'encodeDatabase', `${sectionLabel(s.tag)}: a field of ${fmt(f.data.length)} bytes exceeds the 4 GiB field limit`, NAME_OF[s.tag]);
      }
    }
  }
  return writeContainer(sections);
}

function writeContainer(sections: SectionOut[]): Uint8Array {
  let total = MMDB_HEADER_BYTES;
  const lengths = sections.map((s) => s.fields.reduce((n, f) => n + FIELD_HEADER_BYTES + align8(f.data.length), 0));
  for (const len of lengths) total += MMDB_SECTION_HEADER_BYTES + align8(len);
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);

  out.set(MMDB_MAGIC, 0);
  dv.setUint32(8, MMDB_FORMAT_VERSION, true);
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

// ---------------------------------------------------------------------------------------------
// Decoding: container
// ---------------------------------------------------------------------------------------------

interface RawSection {
  tag: string;
  /** Index in the file (0-based). */
  index: number;
  /** Offset of the section header. */
  headerOffset: number;
  /** Offset of the payload. */
  offset: number;
  length: number;
  crc: number;
}

interface Container {
  version: number;
  sections: RawSection[];
  known: Map<SectionTag, RawSection>;
}

function toBytes(input: Uint8Array | ArrayBuffer | ArrayBufferView): Uint8Array {
  if (input instanceof Uint8Array) return input;
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const kind = Object.prototype.toString.call(input);
  if (kind === '[object ArrayBuffer]' || kind === '[object SharedArrayBuffer]') return new Uint8Array(input as ArrayBuffer);
  throw new TypeError('decodeDatabase: expected a Uint8Array or an ArrayBuffer');
}

function readContainer(bytes: Uint8Array, source: string): Container {
  const err = (code: DatabaseFormatErrorCode, detail: string, section?: string): never => {
    throw new DatabaseFormatError(code, source, detail, section);
  };
  const len = bytes.length;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

  // Magic.
  const m = Math.min(len, MMDB_MAGIC.length);
  let magicOk = true;
  for (let i = 0; i < m; i++) if (bytes[i] !== MMDB_MAGIC[i]) magicOk = false;
  if (!magicOk) {
    const starts = (seq: number[]): boolean => seq.every((b, i) => bytes[i] === b);
    let hint = 'not a .mmdb database file';
    if (starts([0x4d, 0x4d, 0x44, 0x42, 0x0a])) hint = 'the file was converted from CRLF to LF line endings (text-mode transfer); copy it in binary mode';
    else if (starts([0x4d, 0x4d, 0x44, 0x42, 0x0d, 0x0d, 0x0a])) hint = 'the file was converted from LF to CRLF line endings (text-mode transfer); copy it in binary mode';
    else if (starts([0x4d, 0x4d, 0x44, 0x42])) hint = 'the file signature is damaged';
    err('bad-magic', `bad magic number (starts with ${hexBytes(bytes, 0, 8) || 'nothing'}, expected ${hexBytes(Uint8Array.from(MMDB_MAGIC), 0, 8)}): ${hint}`);
  }
  if (len < MMDB_HEADER_BYTES) err('truncated', `truncated: the file is ${fmt(len)} bytes, shorter than the ${MMDB_HEADER_BYTES}-byte header`);

  // Header.
  const version = dv.getUint32(8, true);
  const count = dv.getUint32(12, true);
  const flags = dv.getUint32(16, true);
  const storedHeaderCrc = dv.getUint32(20, true);
  const headerCrc = crc32(bytes, 0, 20);
  if (storedHeaderCrc !== headerCrc) {
    err('crc-mismatch', `header CRC mismatch (stored ${formatCrc(storedHeaderCrc)}, computed ${formatCrc(headerCrc)}): the file is corrupted`);
  }
  if (version !== MMDB_FORMAT_VERSION) {
    const newer = version > MMDB_FORMAT_VERSION ? '; it was written by a newer motionmatch, rebuild the database or upgrade' : '';
    err('unsupported-version', `format version ${version} is not supported (this build reads version ${MMDB_FORMAT_VERSION})${newer}`);
  }
  if (flags !== 0) err('unsupported-version', `header flags ${formatCrc(flags)} are not supported (version ${MMDB_FORMAT_VERSION} defines none)`);

  // Sections.
  const sections: RawSection[] = [];
  const known = new Map<SectionTag, RawSection>();
  let pos = MMDB_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    if (pos === len) err('truncated', `truncated: the file ends after ${i} of ${count} sections`);
    if (len - pos < MMDB_SECTION_HEADER_BYTES) {
      err('truncated', `truncated: the file ends inside the header of section ${i + 1} of ${count} (${fmt(len - pos)} of ${MMDB_SECTION_HEADER_BYTES} bytes at offset ${fmt(pos)})`);
    }
    const tag = tagText(bytes, pos);
    const label = sectionLabel(tag);
    const secFlags = dv.getUint32(pos + 4, true);
    const length = dv.getUint32(pos + 12, true) * 0x100000000 + dv.getUint32(pos + 8, true);
    const storedCrc = dv.getUint32(pos + 16, true);
    const reserved = dv.getUint32(pos + 20, true);
    const start = pos + MMDB_SECTION_HEADER_BYTES;
    const remaining = len - start;
    if (length > remaining) err('truncated', `truncated: ${label} declares ${fmt(length)} bytes but only ${fmt(remaining)} remain`, sectionName(tag));
    const padded = align8(length);
    if (padded > remaining) err('truncated', `truncated: the file ends inside the padding after ${label}`, sectionName(tag));
    const computed = crc32(bytes, start, start + length, crc32(bytes, pos, pos + 16));
    if (computed !== storedCrc) {
      err('crc-mismatch', `${label} CRC mismatch (stored ${formatCrc(storedCrc)}, computed ${formatCrc(computed)}): the file is corrupted`, sectionName(tag));
    }
    if (reserved !== 0) err('bad-section', `${label} has a non-zero reserved header field (${formatCrc(reserved)})`, sectionName(tag));
    if (secFlags !== 0) err('bad-section', `${label} has flags ${formatCrc(secFlags)}; version ${MMDB_FORMAT_VERSION} defines none`, sectionName(tag));
    for (let p = start + length; p < start + padded; p++) {
      if (bytes[p] !== 0) err('bad-section', `${label} has non-zero padding after its payload (offset ${fmt(p)})`, sectionName(tag));
    }
    if (!/^[A-Za-z0-9_]{4}$/.test(tag)) err('bad-section', `section ${i + 1} of ${count} has an invalid tag '${tag}' (expected 4 ASCII letters/digits)`, tag);
    const raw: RawSection = { tag, index: i, headerOffset: pos, offset: start, length, crc: storedCrc };
    if (isKnownTag(tag)) {
      if (known.has(tag)) err('duplicate-section', `${label} appears twice (sections ${known.get(tag)!.index + 1} and ${i + 1})`, NAME_OF[tag]);
      known.set(tag, raw);
    } else if (!(tag[0] >= 'a' && tag[0] <= 'z')) {
      err('bad-section', `unknown required section '${tag}' (sections with an uppercase tag cannot be skipped; the file needs a newer motionmatch)`, tag);
    }
    sections.push(raw);
    pos = start + padded;
  }
  if (pos !== len) {
    err('bad-section', `${fmt(len - pos)} bytes of unexpected data after the last of the ${count} sections (offset ${fmt(pos)}): the file has trailing garbage or a damaged section count`);
  }
  const missing = SECTION_DEFS.filter((d) => !known.has(d.tag));
  if (missing.length) {
    err('missing-section', `missing required section${missing.length > 1 ? 's' : ''} ${missing.map((d) => sectionLabel(d.tag)).join(', ').replace(/section /g, '')}`, missing[0].name);
  }
  return { version, sections, known };
}

// ---------------------------------------------------------------------------------------------
// Decoding: payloads
// ---------------------------------------------------------------------------------------------

/** Bounds-checked sequential reader over the typed fields of one section's payload. */
class Reader {
  private pos: number;
  private readonly end: number;
  private readonly dv: DataView;
  private index = 0;

  constructor(
    private readonly bytes: Uint8Array,
    sec: RawSection,
    private readonly source: string,
    private readonly tag: SectionTag,
  ) {
    this.pos = sec.offset;
    this.end = sec.offset + sec.length;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(code: DatabaseFormatErrorCode, detail: string): never {
    throw new DatabaseFormatError(code, this.source, `${sectionLabel(this.tag)}: ${detail}`, NAME_OF[this.tag]);
  }

  /** The next field's data offset and byte length, after checking its type, bounds and padding. */
  private next(field: string, type: FieldType): { at: number; n: number } {
    const remaining = this.end - this.pos;
    if (remaining < FIELD_HEADER_BYTES) {
      this.fail('inconsistent', `field '${field}' is missing (the section ends after ${this.index} field${this.index === 1 ? '' : 's'})`);
    }
    const n = this.dv.getUint32(this.pos, true);
    const t = this.dv.getUint32(this.pos + 4, true);
    if (t !== FIELD_TYPES[type]) {
      this.fail('bad-section', `field '${field}' has type ${FIELD_TYPE_NAMES[t] ?? `#${t}`}, expected ${type}`);
    }
    if (n > remaining - FIELD_HEADER_BYTES) {
      this.fail('bad-section', `field '${field}' declares ${fmt(n)} bytes but only ${fmt(remaining - FIELD_HEADER_BYTES)} remain in the section`);
    }
    const at = this.pos + FIELD_HEADER_BYTES;
    const next = at + align8(n);
    if (next > this.end) this.fail('bad-section', `the section ends inside the padding after field '${field}'`);
    for (let p = at + n; p < next; p++) {
      if (this.bytes[p] !== 0) this.fail('bad-section', `non-zero padding after field '${field}'`);
    }
    this.pos = next;
    this.index++;
    return { at, n };
  }

  text(field: string): string {
    const { at, n } = this.next(field, 'utf8');
    try {
      return utf8Decoder.decode(this.bytes.subarray(at, at + n));
    } catch {
      return this.fail('bad-section', `field '${field}' is not valid UTF-8`);
    }
  }

  json(field: string): unknown {
    const t = this.text(field);
    try {
      return JSON.parse(t) as unknown;
    } catch (e) {
      return this.fail('bad-section', `field '${field}' is not valid JSON (${(e as Error).message})`);
    }
  }

  private array<T extends Float32Array | Float64Array | Int32Array | Uint32Array | Uint8Array>(
    field: string,
    type: FieldType,
    size: number,
    count: number,
    what: string,
    make: (n: number) => T,
    get: (dv: DataView, at: number) => number,
  ): T {
    const { at, n } = this.next(field, type);
    if (n !== count * size) {
      const has = n % size === 0 ? `${fmt(n / size)} values` : `${fmt(n)} bytes (not a whole number of ${type} values)`;
      this.fail('inconsistent', `field '${field}' has ${has}, expected ${fmt(count)} (${what})`);
    }
    const out = make(count);
    if (size === 1 || useByteCopy) {
      new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(this.bytes.subarray(at, at + n));
    } else {
      for (let i = 0; i < count; i++) out[i] = get(this.dv, at + i * size);
    }
    return out;
  }

  f32(field: string, count: number, what: string): Float32Array {
    return this.array(field, 'f32', 4, count, what, (n) => new Float32Array(n), (dv, at) => dv.getFloat32(at, true));
  }
  f64(field: string, count: number, what: string): Float64Array {
    return this.array(field, 'f64', 8, count, what, (n) => new Float64Array(n), (dv, at) => dv.getFloat64(at, true));
  }
  i32(field: string, count: number, what: string): Int32Array {
    return this.array(field, 'i32', 4, count, what, (n) => new Int32Array(n), (dv, at) => dv.getInt32(at, true));
  }
  u32(field: string, count: number, what: string): Uint32Array {
    return this.array(field, 'u32', 4, count, what, (n) => new Uint32Array(n), (dv, at) => dv.getUint32(at, true));
  }
  u8(field: string, count: number, what: string): Uint8Array {
    return this.array(field, 'u8', 1, count, what, (n) => new Uint8Array(n), (dv, at) => dv.getUint8(at));
  }

  done(): void {
    if (this.pos !== this.end) this.fail('inconsistent', `${fmt(this.end - this.pos)} unexpected bytes after the last field`);
  }

  // JSON shape helpers (a malformed JSON structure is 'bad-section').
  stringArray(v: unknown, field: string, expectedLength?: number): string[] {
    if (!Array.isArray(v)) this.fail('bad-section', `'${field}' is ${describeValue(v)}, expected an array of strings`);
    for (const s of v) if (typeof s !== 'string') this.fail('bad-section', `'${field}' contains ${describeValue(s)}, expected strings only`);
    if (expectedLength !== undefined && v.length !== expectedLength) {
      this.fail('inconsistent', `'${field}' has ${fmt(v.length)} entries but META declares ${fmt(expectedLength)}`);
    }
    return v as string[];
  }

  object(v: unknown, what: string, keys: readonly string[]): Record<string, unknown> {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail('bad-section', `${what} is ${describeValue(v)}, expected an object`);
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!keys.includes(k)) this.fail('bad-section', `${what} has an unknown key '${k}'`);
    for (const k of keys) if (!Object.prototype.hasOwnProperty.call(o, k)) this.fail('bad-section', `${what} has no '${k}'`);
    return o;
  }
}

interface Meta {
  fps: number;
  frames: number;
  joints: number;
  endSites: number;
  clips: number;
  tags: number;
  dims: number;
  stride: number;
  generator: string;
}

function readMeta(bytes: Uint8Array, c: Container, source: string): Meta {
  const r: Reader = new Reader(bytes, c.known.get('META')!, source, 'META');
  const fps = r.f64('fps', 1, 'one rate')[0];
  const counts = r.u32('counts', 7, 'frames, joints, end sites, clips, tags, dims, stride');
  const generator = r.text('generator');
  r.done();
  const [frames, joints, endSites, clips, tags, dims, stride] = counts;
  const meta: Meta = { fps, frames, joints, endSites, clips, tags, dims, stride, generator };
  if (!Number.isFinite(meta.fps)) r.fail('not-finite', `fps is ${describeNumber(meta.fps)}`);
  if (!(meta.fps > 0)) r.fail('inconsistent', `fps is ${meta.fps}, expected > 0`);
  if (meta.joints < 1) r.fail('inconsistent', 'the skeleton has no joints');
  if (meta.tags > MAX_TAGS) r.fail('inconsistent', `${meta.tags} tags, at most ${MAX_TAGS} fit in the per-frame bits`);
  if (meta.stride !== paddedStride(meta.dims)) r.fail('inconsistent', `stride is ${meta.stride}, expected ${paddedStride(meta.dims)} (${meta.dims} dims padded to a multiple of 4)`);
  return meta;
}

/**
 * Parses a .mmdb file. Validates the magic, version, header CRC, every section's bounds and CRC,
 * the absence of trailing bytes, and the decoded database's consistency (checkDatabaseConsistency).
 * Arrays are copied into fresh (aligned) typed arrays; `bytes` is not retained.
 * @param source file name or description used in error messages.
 * @throws DatabaseFormatError for anything wrong with the bytes.
 */
export function decodeDatabase(bytes: Uint8Array | ArrayBuffer, source: string = DEFAULT_SOURCE): Database {
  const b = toBytes(bytes);
  const c = readContainer(b, source);
  const meta = readMeta(b, c, source);
  const N = meta.frames, J = meta.joints, E = meta.endSites, S = meta.stride;
  const reader = (tag: SectionTag): Reader => new Reader(b, c.known.get(tag)!, source, tag);

  // SKEL
  let r: Reader = reader('SKEL');
  const names = r.stringArray(r.json('names'), 'names', J);
  const parents = r.i32('parents', J, `one per joint, ${J} joints`);
  const offsets = r.f64('offsets', 3 * J, `3 per joint, ${J} joints`);
  const endSiteParents = r.i32('endSiteParents', E, `one per end site, ${E} end sites`);
  const endSiteOffsets = r.f64('endSiteOffsets', 3 * E, `3 per end site, ${E} end sites`);
  const rolesObj = r.object(r.json('roles'), 'roles', BONE_ROLES);
  r.done();
  const roles = {} as Record<BoneRole, number>;
  for (const role of BONE_ROLES) {
    const v = rolesObj[role];
    if (typeof v !== 'number') r.fail('bad-section', `role '${role}' is ${describeValue(v)}, expected a joint index`);
    roles[role] = v;
  }
  const skeleton: Skeleton = { names, parents, offsets, endSiteParents, endSiteOffsets };

  // CLIP
  r = reader('CLIP');
  const clipsJson = r.json('clips');
  r.done();
  if (!Array.isArray(clipsJson)) r.fail('bad-section', `the clip list is ${describeValue(clipsJson)}, expected an array`);
  if (clipsJson.length !== meta.clips) r.fail('inconsistent', `${fmt(clipsJson.length)} clips but META declares ${fmt(meta.clips)}`);
  const clips: ClipRange[] = clipsJson.map((v, i) => {
    const o = r.object(v, `clip ${i}`, ['count', 'loop', 'mirrored', 'name', 'source', 'start', 'tags']);
    const clip = {
      name: o.name,
      source: o.source,
      start: o.start,
      count: o.count,
      loop: o.loop,
      mirrored: o.mirrored,
      tags: r.stringArray(o.tags, `clip ${i} tags`),
    } as ClipRange;
    if (typeof clip.name !== 'string' || typeof clip.source !== 'string') r.fail('bad-section', `clip ${i}: name and source must be strings`);
    if (typeof clip.start !== 'number' || typeof clip.count !== 'number') r.fail('bad-section', `clip ${i}: start and count must be numbers`);
    if (typeof clip.loop !== 'boolean' || typeof clip.mirrored !== 'boolean') r.fail('bad-section', `clip ${i}: loop and mirrored must be booleans`);
    return clip;
  });

  // POSE, ROOT, CONT, CAND
  r = reader('POSE');
  const rotations = r.f32('rotations', N * J * 4, `${fmt(N)} frames x ${J} joints x 4`);
  const translations = r.f32('translations', N * J * 3, `${fmt(N)} frames x ${J} joints x 3`);
  r.done();
  r = reader('ROOT');
  const rootPositions = r.f32('rootPositions', N * 3, `${fmt(N)} frames x 3`);
  const rootRotations = r.f32('rootRotations', N * 4, `${fmt(N)} frames x 4`);
  r.done();
  r = reader('CONT');
  const contacts = r.u8('contacts', N, `one per frame, ${fmt(N)} frames`);
  r.done();
  r = reader('CAND');
  const candidates = r.u8('candidates', N, `one per frame, ${fmt(N)} frames`);
  r.done();

  // TAGS
  r = reader('TAGS');
  const tagNames = r.stringArray(r.json('names'), 'names', meta.tags);
  const tagBits = r.u32('bits', N, `one per frame, ${fmt(N)} frames`);
  r.done();

  // SCHM
  r = reader('SCHM');
  const schemaJson = r.json('schema');
  r.done();
  if (schemaJson === null || typeof schemaJson !== 'object' || Array.isArray(schemaJson)) r.fail('bad-section', `the schema is ${describeValue(schemaJson)}, expected an object`);
  const schema = schemaJson as FeatureSchema;

  // NORM, FRAW, FEAT
  r = reader('NORM');
  const mean = r.f32('mean', S, `one per column, stride ${S}`);
  const scale = r.f32('scale', S, `one per column, stride ${S}`);
  r.done();
  r = reader('FRAW');
  const rawFeatures = r.f32('rawFeatures', N * S, `${fmt(N)} frames x stride ${S}`);
  r.done();
  r = reader('FEAT');
  const features = r.f32('features', N * S, `${fmt(N)} frames x stride ${S}`);
  r.done();

  const db: Database = {
    skeleton,
    roles,
    fps: meta.fps,
    frameCount: N,
    clips,
    rotations,
    translations,
    rootPositions,
    rootRotations,
    contacts,
    candidates,
    tagNames,
    tagBits,
    schema,
    dims: meta.dims,
    stride: S,
    rawFeatures,
    features,
    mean,
    scale,
  };
  checkDatabaseConsistency(db, source);
  return db;
}

// ---------------------------------------------------------------------------------------------
// Inspection
// ---------------------------------------------------------------------------------------------

export interface MmdbSectionInfo {
  tag: string;
  /** Section name for known sections ('features', ...), else the tag. */
  name: string;
  /** Payload offset and length in bytes. */
  offset: number;
  length: number;
  crc: number;
  /** False for unknown lowercase (optional, skipped) sections. */
  known: boolean;
}

export interface MmdbInfo {
  version: number;
  byteLength: number;
  generator: string;
  fps: number;
  frameCount: number;
  jointCount: number;
  dims: number;
  stride: number;
  sections: MmdbSectionInfo[];
}

/**
 * Checks the container (magic, version, CRCs, section table) and reads META without decoding the
 * bulk arrays: for `motionmatch info`-style tools. Throws DatabaseFormatError like decodeDatabase.
 */
export function inspectDatabase(bytes: Uint8Array | ArrayBuffer, source: string = DEFAULT_SOURCE): MmdbInfo {
  const b = toBytes(bytes);
  const c = readContainer(b, source);
  const meta = readMeta(b, c, source);
  return {
    version: c.version,
    byteLength: b.length,
    generator: meta.generator,
    fps: meta.fps,
    frameCount: meta.frames,
    jointCount: meta.joints,
    dims: meta.dims,
    stride: meta.stride,
    sections: c.sections.map((s) => ({ tag: s.tag, name: sectionName(s.tag), offset: s.offset, length: s.length, crc: s.crc, known: isKnownTag(s.tag) })),
  };
}
