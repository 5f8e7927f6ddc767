/**
 * What the search relies on in a Database, checked before anything is copied into kernel memory.
 *
 * checkSearchStructure: shapes and types the host and the kernels index by (row count, dims,
 * stride, array types and lengths, tag count, clip ranges, fps). Cheap, and specific to the search:
 * it never looks at skeletons, poses or the schema.
 *
 * The values the exactness rules depend on (finite features, zero padding, finite mean, finite
 * non-zero scale, candidate flags, tag bits) are checked by the database's own
 * checkSearchableDatabase (src/database/database-check.ts): one implementation for files and for
 * databases built in memory.
 */
import type { Database } from '../database/database.js';
import { checkSearchableDatabase } from '../database/database-check.js';

/** Tags fit one u32 of bits per frame. */
export const MAX_SEARCH_TAGS = 32;

/**
 * Throws when `db` cannot be searched: the search's own structure checks (TypeError for a wrong
 * array type, RangeError otherwise), then the database's value checks (DatabaseFormatError).
 */
export function requireSearchableDatabase(db: Database): void {
  checkSearchStructure(db);
  checkSearchableDatabase(db);
}

/** Shapes, types and lengths: O(clips), no per-row work. */
export function checkSearchStructure(db: Database): void {
  if (db === null || typeof db !== 'object') throw new TypeError(`expected a Database object, got ${db === null ? 'null' : typeof db}`);
  const { frameCount: rows, stride, dims } = db;
  if (!Number.isInteger(rows) || rows < 0 || rows > 0x7fffffff) throw new RangeError(`database frameCount ${rows} is not an integer in [0, 2^31 - 1]`);
  if (!Number.isInteger(dims) || dims < 1) throw new RangeError(`database dims ${dims} must be an integer >= 1`);
  if (stride !== Math.ceil(dims / 4) * 4) throw new RangeError(`database stride ${stride} must be dims (${dims}) rounded up to a multiple of 4`);
  requireArray(db.features, Float32Array, 'features', rows * stride, `${rows} frames x stride ${stride}`);
  requireArray(db.candidates, Uint8Array, 'candidates', rows, 'one per frame');
  requireArray(db.tagBits, Uint32Array, 'tagBits', rows, 'one per frame');
  if (!Array.isArray(db.tagNames)) throw new TypeError('database tagNames must be an array of strings');
  if (db.tagNames.length > MAX_SEARCH_TAGS) throw new RangeError(`database has ${db.tagNames.length} tags; at most ${MAX_SEARCH_TAGS} fit the tag bits`);
  if (!isArrayOfAtLeast(db.mean, stride) || !isArrayOfAtLeast(db.scale, stride)) throw new RangeError(`database mean/scale need ${stride} values`);
  if (!(typeof db.fps === 'number' && Number.isFinite(db.fps) && db.fps > 0)) throw new RangeError(`database fps ${db.fps} must be a finite number > 0 (clip times divide by it)`);
  if (!Array.isArray(db.clips)) throw new TypeError('database clips must be an array');
  db.clips.forEach((clip, i) => {
    if (!clip || !Number.isInteger(clip.start) || !Number.isInteger(clip.count) || clip.start < 0 || clip.count < 0) {
      throw new RangeError(`database clip ${i}: start ${clip?.start} and count ${clip?.count} must be non-negative integers`);
    }
  });
}

function requireArray(a: unknown, type: Float32ArrayConstructor | Uint8ArrayConstructor | Uint32ArrayConstructor, name: string, length: number, what: string): void {
  if (!(a instanceof type)) throw new TypeError(`database ${name} must be a ${type.name}`);
  if (a.length !== length) throw new RangeError(`database ${name} has ${a.length} entries, expected ${length} (${what})`);
}

function isArrayOfAtLeast(a: unknown, n: number): boolean {
  return (a instanceof Float32Array || a instanceof Float64Array || Array.isArray(a)) && a.length >= n;
}
