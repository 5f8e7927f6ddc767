/**
 * Reading the `.mmdb` container (docs/mmdb-format.md): the file header, the section table with its
 * CRCs, and the typed fields inside a section's payload. Nothing here trusts the input: every
 * length is bounds-checked before it is used, so damaged bytes give a DatabaseFormatError, never
 * an allocation or a loop larger than the file. Pure and browser-safe.
 */
import { crc32, formatCrc } from '../../util/crc32.js';
import {
  DatabaseFormatError,
  FIELD_HEADER_BYTES,
  FIELD_TYPE_NAMES,
  FIELD_TYPES,
  MMDB_FORMAT_VERSION,
  MMDB_HEADER_BYTES,
  MMDB_MAGIC,
  MMDB_MAX_FILE_BYTES,
  MMDB_MAX_JSON_DEPTH,
  MMDB_SECTION_HEADER_BYTES,
  NAME_OF,
  MMDB_READ_VERSIONS,
  MMDB_COMPACT_VERSION,
  requiredSectionDefs,
  tagBelongsTo,
  align8,
  describeValue,
  fmt,
  hexBytes,
  isKnownTag,
  quoted,
  sectionLabel,
  sectionName,
  tagText,
  typedArrayByteCopy,
  type DatabaseFormatErrorCode,
  type FieldType,
  type SectionTag,
} from './format.js';

export interface RawSection {
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

export interface Container {
  version: number;
  sections: RawSection[];
  /** The sections this build understands (required and optional), by tag. */
  known: Map<SectionTag, RawSection>;
}

export function toBytes(input: Uint8Array | ArrayBuffer | ArrayBufferView): Uint8Array {
  if (input instanceof Uint8Array) return input;
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const kind = Object.prototype.toString.call(input);
  if (kind === '[object ArrayBuffer]' || kind === '[object SharedArrayBuffer]') return new Uint8Array(input as ArrayBuffer);
  throw new TypeError('decodeDatabase: expected a Uint8Array or an ArrayBuffer');
}

/**
 * Checks what the first bytes of a .mmdb file of `fileBytes` bytes say (its size limit, the magic
 * number, the header's CRC, version and flags) from `head`, those first bytes (at least
 * MMDB_HEADER_BYTES of them, or the whole file when shorter): a file that is no database is refused
 * before the rest of it is read. Returns the header's version and section count.
 */
export function checkContainerHeader(head: Uint8Array, fileBytes: number, source: string): { version: number; count: number } {
  const err = (code: DatabaseFormatErrorCode, detail: string, section?: string): never => {
    throw new DatabaseFormatError(code, source, detail, section);
  };
  const bytes = head;
  const len = fileBytes;
  if (len > MMDB_MAX_FILE_BYTES) err('too-large', `${fmt(len)} bytes is larger than the ${fmt(MMDB_MAX_FILE_BYTES)} bytes a .mmdb file may have`);
  if (head.length < Math.min(len, MMDB_HEADER_BYTES)) throw new RangeError(`checkContainerHeader: ${head.length} bytes given, the header needs ${Math.min(len, MMDB_HEADER_BYTES)}`);
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
  if (!MMDB_READ_VERSIONS.includes(version)) {
    const newest = Math.max(...MMDB_READ_VERSIONS);
    const newer = version > newest ? '; it was written by a newer motionmatch, rebuild the database or upgrade' : '';
    err('unsupported-version', `format version ${version} is not supported (this build reads version ${MMDB_FORMAT_VERSION}, and version ${MMDB_COMPACT_VERSION} for compact databases)${newer}`);
  }
  if (flags !== 0) err('unsupported-version', `header flags ${formatCrc(flags)} are not supported (version ${version} defines none)`);
  return { version, count };
}

/** Checks the header and the section table (bounds, CRCs, padding, tags); reads no payload field. */
export function readContainer(bytes: Uint8Array, source: string): Container {
  const err = (code: DatabaseFormatErrorCode, detail: string, section?: string): never => {
    throw new DatabaseFormatError(code, source, detail, section);
  };
  const len = bytes.length;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { version, count } = checkContainerHeader(bytes, len, source);

  // Sections. Each one consumes at least its 24-byte header, so the loop ends within len / 24
  // rounds whatever the declared count.
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
    if (secFlags !== 0) err('bad-section', `${label} has flags ${formatCrc(secFlags)}; version ${version} defines none`, sectionName(tag));
    for (let p = start + length; p < start + padded; p++) {
      if (bytes[p] !== 0) err('bad-section', `${label} has non-zero padding after its payload (offset ${fmt(p)})`, sectionName(tag));
    }
    if (!/^[A-Za-z0-9_]{4}$/.test(tag)) err('bad-section', `section ${i + 1} of ${count} has an invalid tag '${tag}' (expected 4 ASCII letters/digits)`, tag);
    const raw: RawSection = { tag, index: i, headerOffset: pos, offset: start, length, crc: storedCrc };
    if (isKnownTag(tag) && !tagBelongsTo(tag, version)) {
      err('bad-section', `${label} does not belong in a version ${version} file${version === MMDB_FORMAT_VERSION ? ' (it is a compact-database section)' : ''}`, NAME_OF[tag]);
    } else if (isKnownTag(tag)) {
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
  const missing = requiredSectionDefs(version).filter((d) => !known.has(d.tag));
  if (missing.length) {
    err('missing-section', `missing required section${missing.length > 1 ? 's' : ''} ${missing.map((d) => sectionLabel(d.tag)).join(', ').replace(/section /g, '')}`, missing[0].name);
  }
  return { version, sections, known };
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Deepest nesting of arrays and objects in a JSON text (brackets inside strings do not count). */
export function jsonDepth(text: string): number {
  let depth = 0, max = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) { if (++depth > max) max = depth; }
    else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return max;
}

/** Bounds-checked sequential reader over the typed fields of one section's payload. */
export class FieldReader {
  private pos: number;
  private readonly end: number;
  private readonly dv: DataView;
  private index = 0;

  /**
   * `views`: typed fields come back as views of `bytes` where they are aligned for their type (on a
   * little-endian host), not as copies; the caller then owns `bytes` for as long as they live.
   */
  constructor(
    private readonly bytes: Uint8Array,
    sec: RawSection,
    private readonly source: string,
    private readonly tag: SectionTag,
    private readonly views = false,
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
    const depth = jsonDepth(t);
    if (depth > MMDB_MAX_JSON_DEPTH) this.fail('bad-section', `field '${field}' nests ${fmt(depth)} levels deep, at most ${MMDB_MAX_JSON_DEPTH} are allowed`);
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
    view: (buffer: ArrayBufferLike, offset: number, n: number) => T,
  ): T {
    const { at, n } = this.next(field, type);
    // Sizes are compared before anything is allocated: a META count of 4 billion frames costs nothing.
    if (n !== count * size) {
      const has = n % size === 0 ? `${fmt(n / size)} values` : `${fmt(n)} bytes (not a whole number of ${type} values)`;
      this.fail('inconsistent', `field '${field}' has ${has}, expected ${fmt(count)} (${what})`);
    }
    const offset = this.bytes.byteOffset + at;
    if (this.views && (size === 1 || typedArrayByteCopy()) && offset % size === 0) return view(this.bytes.buffer, offset, count);
    const out = make(count);
    if (size === 1 || typedArrayByteCopy()) {
      new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(this.bytes.subarray(at, at + n));
    } else {
      for (let i = 0; i < count; i++) out[i] = get(this.dv, at + i * size);
    }
    return out;
  }

  f32(field: string, count: number, what: string): Float32Array {
    return this.array(field, 'f32', 4, count, what, (n) => new Float32Array(n), (dv, at) => dv.getFloat32(at, true), (b, o, n) => new Float32Array(b, o, n));
  }
  f64(field: string, count: number, what: string): Float64Array {
    return this.array(field, 'f64', 8, count, what, (n) => new Float64Array(n), (dv, at) => dv.getFloat64(at, true), (b, o, n) => new Float64Array(b, o, n));
  }
  i32(field: string, count: number, what: string): Int32Array {
    return this.array(field, 'i32', 4, count, what, (n) => new Int32Array(n), (dv, at) => dv.getInt32(at, true), (b, o, n) => new Int32Array(b, o, n));
  }
  u32(field: string, count: number, what: string): Uint32Array {
    return this.array(field, 'u32', 4, count, what, (n) => new Uint32Array(n), (dv, at) => dv.getUint32(at, true), (b, o, n) => new Uint32Array(b, o, n));
  }
  u8(field: string, count: number, what: string): Uint8Array {
    return this.array(field, 'u8', 1, count, what, (n) => new Uint8Array(n), (dv, at) => dv.getUint8(at), (b, o, n) => new Uint8Array(b, o, n));
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
    for (const k of Object.keys(o)) if (!keys.includes(k)) this.fail('bad-section', `${what} has an unknown key ${quoted(k)}`);
    for (const k of keys) if (!Object.prototype.hasOwnProperty.call(o, k)) this.fail('bad-section', `${what} has no '${k}'`);
    return o;
  }
}
