/**
 * The `.mmdb` database file format: a small header followed by CRC-protected, 8-byte aligned
 * sections. See docs/mmdb-format.md for the byte layout, versioning policy and validation rules.
 *
 * This module is the format's public face; the parts live in one file per concept:
 *   mmdb/format.ts     constants, section tags, field types, DatabaseFormatError
 *   mmdb/encode.ts     encodeDatabase
 *   mmdb/container.ts  header, section table and field reader (bounds and CRC checks)
 *   mmdb/decode.ts     decodeDatabase
 *   mmdb/inspect.ts    inspectDatabase (container and META only)
 *   database-check.ts  checkDatabaseConsistency, checkSearchableDatabase
 *   limits.ts          MIN_FPS, MAX_FPS, MAX_TAGS
 *
 * Pure and browser-safe: no fs, no Buffer (DataView, TextEncoder, TextDecoder only).
 */
export {
  MMDB_FORMAT_VERSION,
  MMDB_MAGIC,
  MMDB_HEADER_BYTES,
  MMDB_SECTION_HEADER_BYTES,
  MMDB_ALIGN,
  MMDB_MAX_FILE_BYTES,
  MMDB_MAX_JSON_DEPTH,
  DATABASE_FORMAT_ERROR_CODES,
  DatabaseFormatError,
  _setTypedArrayByteCopy,
  type DatabaseFormatErrorCode,
} from './format.js';
export { encodeDatabase, type EncodeDatabaseOptions } from './encode.js';
export { decodeDatabase } from './decode.js';
export { inspectDatabase, type MmdbInfo, type MmdbSectionInfo } from './inspect.js';
export { checkDatabaseConsistency, checkSearchableDatabase } from '../database-check.js';
export { MIN_FPS, MAX_FPS, MAX_TAGS } from '../limits.js';
