/**
 * The database the demo serves (`motionmatch demo --db FILE`): a compact file as it is; a float32
 * file as a compact encoding of it (docs/compact.md), 20x fewer bytes for the page to download,
 * encoded once and cached under the package's node_modules/.cache/motionmatch-demo/ (else the
 * user's own folder in the system's temporary folder; MOTIONMATCH_CACHE_DIR chooses another), keyed by the float32 file's
 * CRC-32 and size, so an edited or rebuilt file is encoded again and an unchanged one is not. The
 * cache keeps the MAX_CACHED most recently used encodings.
 */
import { existsSync, readdirSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Database } from '../database/database.js';
import { readDatabaseBytes, writeCompactDatabaseFile } from '../database/mmdb/mmdb-node.js';
import { MMDB_COMPACT_VERSION } from '../database/mmdb/format.js';
import { decodeDatabase } from '../database/mmdb/decode.js';
import { crc32 } from '../util/crc32.js';
import { firstUsableFolder, userTemporaryFolder } from '../util/files-node.js';

/** The format version in a .mmdb file's header (bytes 8..11; the header has been checked). */
export function mmdbVersion(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
}

export interface CompactCopy {
  /** The file to serve: the compact file itself, or the cached encoding of the float32 one. */
  file: string;
  /** Whether `file` was encoded now (false: the file was compact, or the cache had it). */
  encoded: boolean;
  /** Whether the given file was compact already. */
  wasCompact: boolean;
  bytes: number;
}

/** Encodings the cache keeps (the most recently used): a few databases a user switches between. */
export const MAX_CACHED = 8;
const CACHED_SUFFIX = '.compact.mmdb';
/**
 * The names this cache writes: STEM.PLACE.CRC-SIZE.compact.mmdb (hex place and CRC, decimal size).
 * Only such files are ever removed: a cache folder chosen with MOTIONMATCH_CACHE_DIR may hold the
 * user's own databases (a "walk.compact.mmdb" is theirs, not an old entry).
 */
const CACHED_NAME = /^[A-Za-z0-9_-]+\.[0-9a-f]{8}\.[0-9a-f]{8}-\d+\.compact\.mmdb$/;

/**
 * The folder cached encodings go in: $MOTIONMATCH_CACHE_DIR when set, else under `packageRoot`'s
 * node_modules/.cache when writable, else the user's own folder in the temporary folder.
 */
export function compactCacheDir(packageRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env.MOTIONMATCH_CACHE_DIR;
  const dirs = chosen ? [resolve(chosen)] : [join(packageRoot, 'node_modules', '.cache', 'motionmatch-demo'), userTemporaryFolder('motionmatch-demo-cache')];
  const dir = firstUsableFolder(dirs);
  if (dir !== null) return dir;
  throw new Error(`cannot create a cache folder for the demo's compact database (tried ${dirs.join(' and ')}): give --serve-float32 to serve the file as it is, or MOTIONMATCH_CACHE_DIR=FOLDER`);
}

/**
 * The compact file to serve for the database `file` (already read and checked by the caller, which
 * passes the decoded `db`): `file` itself when it is compact, else a cached compact encoding of it,
 * written when missing (`onProgress` per compressed clip). Older encodings of the same file name
 * are removed from the cache.
 */
export function compactCopyOf(file: string, db: Database, cacheDir: string, onProgress?: (done: number, total: number, label: string) => void): CompactCopy {
  const bytes = readDatabaseBytes(file);
  if (mmdbVersion(bytes) === MMDB_COMPACT_VERSION) return { file, encoded: false, wasCompact: true, bytes: bytes.length };
  // The file's name and a hash of its path: two files of one name in different folders keep their own entries.
  const place = crc32(new TextEncoder().encode(resolve(file))).toString(16).padStart(8, '0');
  const stem = `${basename(file).replace(/\.mmdb$/i, '').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'database'}.${place}`;
  const key = `${crc32(bytes).toString(16).padStart(8, '0')}-${bytes.length}`;
  const cached = join(cacheDir, `${stem}.${key}${CACHED_SUFFIX}`);
  if (existsSync(cached)) {
    // A damaged cache entry is encoded again, not served.
    try {
      const c = readDatabaseBytes(cached);
      if (mmdbVersion(c) === MMDB_COMPACT_VERSION && decodeDatabase(c, cached).frameCount === db.frameCount) {
        markUsed(cached);
        return { file: cached, encoded: false, wasCompact: false, bytes: c.length };
      }
    } catch {
      // fall through: encode again
    }
  }
  for (const old of readdirSync(cacheDir)) {
    if (old.startsWith(`${stem}.`) && CACHED_NAME.test(old) && join(cacheDir, old) !== cached && resolve(cacheDir, old) !== resolve(file)) {
      try { unlinkSync(join(cacheDir, old)); } catch { /* someone else's: leave it */ }
    }
  }
  const { bytes: written } = writeCompactDatabaseFile(cached, db, { onProgress });
  pruneCache(cacheDir, cached, resolve(file));
  return { file: cached, encoded: true, wasCompact: false, bytes: written };
}

/** A cache entry's modification time set to now: the pruning keeps what was used last. */
function markUsed(file: string): void {
  try { const now = new Date(); utimesSync(file, now, now); } catch { /* read-only cache: still served */ }
}

/** Removes all but the MAX_CACHED most recently used encodings (`keep`, just written, and the user's `source` always stay). */
function pruneCache(cacheDir: string, keep: string, source: string): void {
  const entries: Array<{ file: string; used: number }> = [];
  for (const name of readdirSync(cacheDir)) {
    if (!CACHED_NAME.test(name)) continue;
    const file = join(cacheDir, name);
    if (file === keep || resolve(file) === source) continue;
    try { entries.push({ file, used: statSync(file).mtimeMs }); } catch { /* gone meanwhile */ }
  }
  entries.sort((a, b) => b.used - a.used);
  for (const e of entries.slice(MAX_CACHED - 1)) {
    try { unlinkSync(e.file); } catch { /* someone else's: leave it */ }
  }
}
