/**
 * The built-in database for the commands that run on it when no --db is given (simulate, quality,
 * bench, demo's tag check). Generating the procedural clips and building takes 1–2 s (2–4 s in a
 * fresh process, before V8 has optimised the generator), every command, every process. So the
 * first build is kept on disk (builtin-cache-node.ts: a float32 .mmdb named by a hash of the code
 * that builds it), and a later process reads it back in about a tenth of that; the database read is
 * equal to the build in every field. Within a process it is built or read once, and each call gets a
 * database of its own: the first call the one built or read (read, its arrays are views of the
 * file's bytes), every later call one decoded from the encoded database kept for them (a copy of the
 * file's bytes, or the encoding written to it), so that no command depends on what another did to
 * the one it got. (Kept as a structuredClone of the database instead, the copy cost every process
 * 50-100 ms that most never used: a command asks once.) What is derived from the poses is derived
 * once for those copies, as long as a copy is still equal to the encoding when it is first used
 * (declarePoseTwin).
 */
import { buildDatabase } from '../database/build.js';
import { builtinSources } from '../database/builtin-sources.js';
import type { Database } from '../database/database.js';
import { decodeDatabase } from '../database/mmdb/decode.js';
import { encodeDatabase } from '../database/mmdb/encode.js';
import { declarePoseTwin } from '../database/pose-source.js';
import { readCachedBuiltinBytes, writeCachedBuiltin } from './builtin-cache-node.js';

/** The encoded built-in database that the calls after the first decode their own copy from; never handed out. */
let pristine: Uint8Array | null = null;
/**
 * A decode of `pristine` that is never handed out either: what the later copies' derived tables
 * (runtime tables, captured contact data, the data's own quality level) are derived from, once,
 * while a copy still equals it (declarePoseTwin).
 */
let twin: Database | null = null;

/** `buildDatabase(builtinSources())`, built (or read from the cache) once per process; each call's database is its own. */
export function builtinDatabase(): Database {
  if (pristine) {
    const copy = decodeDatabase(pristine, 'the built-in database');
    twin ??= decodeDatabase(pristine, 'the built-in database', { viewsOfBytes: true });
    declarePoseTwin(copy, twin);
    return copy;
  }
  const cached = readCachedBuiltinBytes();
  if (cached !== null) {
    try {
      const db = decodeDatabase(cached.bytes, cached.file, { viewsOfBytes: true });
      // (before the caller can change the bytes through its arrays)
      pristine = cached.bytes.slice();
      return db;
    } catch {
      // damaged: built again and replaced
    }
  }
  const db = buildDatabase(builtinSources());
  try {
    pristine = encodeDatabase(db);
  } catch {
    return db; // (cannot happen for a database just built; the next call builds again)
  }
  writeCachedBuiltin(pristine);
  return db;
}
