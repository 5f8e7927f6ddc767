/**
 * The vocabulary of the `.mmdb` format shared by its encoder, decoder and checks: header and
 * section constants, section tags, field types, the error type, and how messages name things.
 * See docs/mmdb-format.md for the byte layout, versioning policy and validation rules.
 *
 * Pure and browser-safe: no fs, no Buffer.
 */
import type { BoneRole } from '../../features/schema.js';

// ---------------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------------

/** The format version of float32 databases (every pose and feature stored as it is used). */
export const MMDB_FORMAT_VERSION = 1;
/**
 * The format version of compact databases (docs/compact.md): compressed poses, everything derivable
 * rebuilt on load. A reader of version 1 only refuses these with its "newer motionmatch" message.
 */
export const MMDB_COMPACT_VERSION = 2;
/** The versions this build reads. */
export const MMDB_READ_VERSIONS: readonly number[] = Object.freeze([MMDB_FORMAT_VERSION, MMDB_COMPACT_VERSION]);

/** "MMDB\r\n\x1a\n": the CR/LF pair catches text-mode conversions, 0x1a stops `type` on DOS. */
export const MMDB_MAGIC: readonly number[] = Object.freeze([0x4d, 0x4d, 0x44, 0x42, 0x0d, 0x0a, 0x1a, 0x0a]);

/** File header: magic[8], u32 version, u32 section count, u32 flags, u32 header CRC. */
export const MMDB_HEADER_BYTES = 24;
/** Section header: tag[4], u32 flags, u64 payload length, u32 CRC, u32 reserved. */
export const MMDB_SECTION_HEADER_BYTES = 24;
/** Payloads (and every field inside the built-in payloads) start at multiples of this. */
export const MMDB_ALIGN = 8;

/**
 * Largest .mmdb file (bytes): every field's length is a u32, and a reader holds the whole file in
 * one byte array, which Node 20 caps at 2^32 bytes (buffer.constants.MAX_LENGTH). Readers refuse a
 * larger file before reading any of it; the encoder refuses to produce one.
 */
export const MMDB_MAX_FILE_BYTES = 2 ** 32 - 1;

/**
 * JSON fields nest at most this deep (the schema, the deepest, needs 4). A deeper document is no
 * database, and recursive code further on (re-encoding, structured clone) would overflow the stack.
 */
export const MMDB_MAX_JSON_DEPTH = 32;

/** Required sections, in the order the encoder writes them. */
export const SECTION_DEFS = [
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

/** Required sections of a compact (version 2) file, in the order the encoder writes them. */
export const COMPACT_SECTION_DEFS = [
  { tag: 'META', name: 'meta' },
  { tag: 'SKEL', name: 'skeleton' },
  { tag: 'CLIP', name: 'clips' },
  { tag: 'SCHM', name: 'schema' },
  { tag: 'CTAG', name: 'tagRuns' },
  { tag: 'CCON', name: 'contactOptions' },
  { tag: 'CMIR', name: 'mirrorLinks' },
  { tag: 'CPOS', name: 'compactPoses' },
] as const;

/** The required sections of a file of `version` (a version this build reads). */
export function requiredSectionDefs(version: number): ReadonlyArray<{ tag: SectionTag; name: SectionName }> {
  return version === MMDB_COMPACT_VERSION ? COMPACT_SECTION_DEFS : SECTION_DEFS;
}

/**
 * Optional sections this build understands (lowercase tags: older readers skip them), written
 * after the required ones and only when they hold something.
 */
export const OPTIONAL_SECTION_DEFS = [
  { tag: 'rate', name: 'sourceRates' },
] as const;

/** Optional sections of compact files (docs/compact.md): the pose error measured when written. */
export const COMPACT_OPTIONAL_SECTION_DEFS = [
  { tag: 'cerr', name: 'poseError' },
] as const;

export type RequiredSectionTag = (typeof SECTION_DEFS)[number]['tag'] | (typeof COMPACT_SECTION_DEFS)[number]['tag'];
export type SectionTag = RequiredSectionTag | (typeof OPTIONAL_SECTION_DEFS)[number]['tag'] | (typeof COMPACT_OPTIONAL_SECTION_DEFS)[number]['tag'];
export type SectionName =
  | (typeof SECTION_DEFS)[number]['name']
  | (typeof COMPACT_SECTION_DEFS)[number]['name']
  | (typeof OPTIONAL_SECTION_DEFS)[number]['name']
  | (typeof COMPACT_OPTIONAL_SECTION_DEFS)[number]['name'];

export const NAME_OF: Record<SectionTag, SectionName> = Object.fromEntries(
  [...SECTION_DEFS, ...COMPACT_SECTION_DEFS, ...OPTIONAL_SECTION_DEFS, ...COMPACT_OPTIONAL_SECTION_DEFS].map((d) => [d.tag, d.name]),
) as Record<SectionTag, SectionName>;

/** True when a section with this (known) tag belongs in a file of `version`. */
export function tagBelongsTo(tag: SectionTag, version: number): boolean {
  if (tag[0] >= 'a' && tag[0] <= 'z') return true;
  return requiredSectionDefs(version).some((d) => d.tag === tag);
}

/** Every BoneRole, in file order. The type assertion below fails to compile if BoneRole grows. */
export const BONE_ROLES = ['hips', 'leftFoot', 'rightFoot', 'leftToe', 'rightToe'] as const satisfies readonly BoneRole[];
type MissingRole = Exclude<BoneRole, (typeof BONE_ROLES)[number]>;
const _allRolesListed: [MissingRole] extends [never] ? true : never = true;
void _allRolesListed;

/**
 * Field element types. Every field inside a built-in payload is: u32 byte length, u32 type, the
 * data, zero padding to a multiple of 8 (so the data of every field is 8-byte aligned).
 */
export const FIELD_TYPES = { u8: 1, i32: 2, u32: 3, f32: 4, f64: 5, utf8: 6 } as const;
export type FieldType = keyof typeof FIELD_TYPES;
export const FIELD_TYPE_NAMES: Record<number, FieldType> = Object.fromEntries(Object.entries(FIELD_TYPES).map(([k, v]) => [v, k as FieldType]));
export const FIELD_HEADER_BYTES = 8;

export const DEFAULT_SOURCE = 'mmdb data';

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** Every DatabaseFormatError code, as documented in docs/mmdb-format.md. */
export const DATABASE_FORMAT_ERROR_CODES = [
  'too-large',
  'bad-magic',
  'truncated',
  'crc-mismatch',
  'unsupported-version',
  'bad-section',
  'missing-section',
  'duplicate-section',
  'inconsistent',
  'not-finite',
] as const;

export type DatabaseFormatErrorCode = (typeof DATABASE_FORMAT_ERROR_CODES)[number];

/** Anything wrong with a .mmdb file (or with a Database about to be encoded or searched). */
export class DatabaseFormatError extends Error {
  override readonly name = 'DatabaseFormatError';
  readonly code: DatabaseFormatErrorCode;
  /** Section name ('features', 'poses', ...) or, for an unknown section, its tag; undefined for the header/file. */
  readonly section: string | undefined;
  /** File path or description of the bytes, as given to the decoder. */
  readonly source: string;

  constructor(code: DatabaseFormatErrorCode, source: string, detail: string, section?: string) {
    // Names from the file end up in messages: a newline or a terminal escape in one must not
    // turn the one-line message into several lines or into terminal commands.
    super(escapeControls(`${source}: ${detail}`));
    this.code = code;
    this.source = source;
    this.section = section;
  }
}

// ---------------------------------------------------------------------------------------------
// Typed arrays in the file are little-endian
// ---------------------------------------------------------------------------------------------

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
let useByteCopy = LITTLE_ENDIAN_HOST;

/** True when typed arrays may be copied bytewise (little-endian host), false for the DataView path. */
export function typedArrayByteCopy(): boolean {
  return useByteCopy;
}

/**
 * @internal Testing hook: force the portable DataView path for typed arrays (what big-endian hosts
 * use) instead of byte copies. Returns the previous setting.
 */
export function _setTypedArrayByteCopy(enabled: boolean): boolean {
  const prev = useByteCopy;
  useByteCopy = enabled && LITTLE_ENDIAN_HOST;
  return prev;
}

// ---------------------------------------------------------------------------------------------
// Naming things in messages
// ---------------------------------------------------------------------------------------------

export const align8 = (n: number): number => Math.ceil(n / MMDB_ALIGN) * MMDB_ALIGN;

/** 1048576 -> "1,048,576" (locale-independent). */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A section tag as text, with unprintable bytes escaped. */
export function tagText(bytes: Uint8Array, at: number): string {
  let s = '';
  for (let i = 0; i < 4; i++) {
    const b = bytes[at + i];
    s += b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : '\\x' + b.toString(16).padStart(2, '0');
  }
  return s;
}

export function isKnownTag(tag: string): tag is SectionTag {
  return Object.prototype.hasOwnProperty.call(NAME_OF, tag);
}

/** "section 'poses' (POSE)" / "section 'xyzw'". */
export function sectionLabel(tag: string): string {
  return isKnownTag(tag) ? `section '${NAME_OF[tag]}' (${tag})` : `section '${tag}'`;
}

export function sectionName(tag: string): string {
  return isKnownTag(tag) ? NAME_OF[tag] : tag;
}

export function hexBytes(bytes: Uint8Array, start: number, end: number): string {
  const out: string[] = [];
  for (let i = start; i < Math.min(end, bytes.length); i++) out.push(bytes[i].toString(16).padStart(2, '0'));
  return out.join(' ');
}

/** `s` with control characters (C0, DEL, C1, line/paragraph separators) written as \uXXXX escapes. */
export function escapeControls(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** A name from the file, for a message: 'name', shortened past `max` characters, controls escaped. */
export function quoted(s: string, max = 60): string {
  return `'${escapeControls(s.length > max ? s.slice(0, max) + '...' : s)}'`;
}

export function describeNumber(v: number): string {
  return Number.isNaN(v) ? 'NaN' : String(v);
}

export function describeValue(v: unknown): string {
  if (typeof v === 'number') return describeNumber(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : String(v);
}
