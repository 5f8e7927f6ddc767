/**
 * The `.mmdb` database file format: a small header followed by CRC-protected, 8-byte aligned
 * sections. See docs/mmdb-format.md for the byte layout, versioning policy and validation rules.
 *
 * This module is the format's public face; the parts live in one file per concept:
 *   mmdb/format.ts     constants, section tags, field types, DatabaseFormatError
 *   mmdb/encode.ts     encodeDatabase
 *   mmdb/container.ts  header, section table and field reader (bounds and CRC checks)
 *   mmdb/decode.ts     decodeDatabase
 *   mmdb/inspect.ts    inspectDatabase (container and META only), partSizes, readPoseErrorReport
 *   mmdb/encode-compact.ts, decode-compact.ts, compact-clip-table.ts
 *                      compact files (version 2, docs/compact.md); the codec is in ../compact/
 *   database-check.ts  checkDatabaseConsistency, checkSearchableDatabase
 *   limits.ts          MIN_FPS, MAX_FPS, MAX_TAGS
 *
 * Pure and browser-safe: no fs, no Buffer (DataView, TextEncoder, TextDecoder only).
 */
export {
  MMDB_FORMAT_VERSION,
  MMDB_COMPACT_VERSION,
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
export { decodeDatabase, type DecodeOptions } from './decode.js';
export { inspectDatabase, partSizes, readPoseErrorReport, type MmdbInfo, type MmdbSectionInfo } from './inspect.js';
export { encodeCompactDatabase, type EncodeCompactOptions, type CompactEncoding } from './encode-compact.js';
export type { PoseErrorReport, ErrorFigures } from '../compact/pose-error.js';
export { checkDatabaseConsistency, checkSearchableDatabase } from '../database-check.js';
export { MIN_FPS, MAX_FPS, MAX_TAGS } from '../limits.js';
