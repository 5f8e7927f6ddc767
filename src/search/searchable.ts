/**
 * What the search relies on in a Database, checked before anything is copied into kernel memory.
 *
 * checkSearchStructure: shapes and types the host and the kernels index by (row count, dims,
 * stride, array types and lengths, tag count, clip ranges, fps). Cheap, and specific to the search:
 * it never looks at skeletons, poses or the schema.
 *
 * checkSearchValues: the values the exactness rules depend on (finite features, zero padding,
 * finite mean, finite non-zero scale). These repeat the NORM and FEAT checks of
 * checkDatabaseConsistency (src/database/mmdb.ts), which every decoded .mmdb file already passed;
 * they stay here, marked for replacement, until src/database/ exports one implementation that the
 * search can call for databases built in memory.
 */
import type { Database } from '../database/database.js';

/** Tags fit one u32 of bits per frame. */
export const MAX_SEARCH_TAGS = 32;

/** Throws RangeError (TypeError for a wrong array type) when `db` cannot be searched. */
export function checkSearchableDatabase(db: Database): void {
  checkSearchStructure(db);
  checkSearchValues(db);
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

// REPLACE when src/database/ exports its one implementation of these checks: delete this function
// and call that export from checkSearchableDatabase instead (see the module comment).
/** Finite features with zero padding, finite mean, finite non-zero scale: O(rows x stride). */
export function checkSearchValues(db: Database): void {
  const { frameCount: rows, stride, dims } = db;
  for (let j = 0; j < dims; j++) {
    if (!Number.isFinite(db.mean[j])) throw new RangeError(`database mean[${j}] is ${db.mean[j]}`);
    if (!Number.isFinite(db.scale[j]) || db.scale[j] === 0) throw new RangeError(`database scale[${j}] is ${db.scale[j]}`);
  }
  const f = db.features;
  for (let i = 0; i < rows; i++) {
    const r = i * stride;
    for (let j = 0; j < dims; j++) {
      if (!Number.isFinite(f[r + j])) throw new RangeError(`database features[frame ${i}][${j}] is ${f[r + j]}`);
    }
    for (let j = dims; j < stride; j++) {
      if (f[r + j] !== 0) throw new RangeError(`database features[frame ${i}] padding [${j}] is ${f[r + j]}, must be 0`);
    }
  }
}

function requireArray(a: unknown, type: Float32ArrayConstructor | Uint8ArrayConstructor | Uint32ArrayConstructor, name: string, length: number, what: string): void {
  if (!(a instanceof type)) throw new TypeError(`database ${name} must be a ${type.name}`);
  if (a.length !== length) throw new RangeError(`database ${name} has ${a.length} entries, expected ${length} (${what})`);
}

function isArrayOfAtLeast(a: unknown, n: number): boolean {
  return (a instanceof Float32Array || a instanceof Float64Array || Array.isArray(a)) && a.length >= n;
}
