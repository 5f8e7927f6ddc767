/**
 * The built-in database for the commands that run on it when no --db is given (simulate, quality,
 * bench, demo's tag check). Generating the procedural clips and building takes 1–2 s (2–4 s in a
 * fresh process, before V8 has optimised the generator), every command, every process. So the
 * first build is kept on disk (builtin-cache-node.ts: a float32 .mmdb named by a hash of the code
 * that builds it), and a later process reads it back in about a tenth of that; the database read is
 * equal to the build in every field. Within a process it is built or read once, and each call gets a
 * database of its own (the first call keeps a copy as built, every later call gets a copy of that
 * copy; structuredClone: plain objects and typed arrays, 7–12 ms for its 10 MB), so that no command
 * depends on what another did to the one it got.
 */
import { buildDatabase } from '../database/build.js';
import { builtinSources } from '../database/builtin-sources.js';
import type { Database } from '../database/database.js';
import { readCachedBuiltin, writeCachedBuiltin } from './builtin-cache-node.js';

let pristine: Database | null = null;

/** `buildDatabase(builtinSources())`, built (or read from the cache) once per process; each call's database is its own. */
export function builtinDatabase(): Database {
  if (pristine) return structuredClone(pristine);
  let db = readCachedBuiltin();
  if (db === null) {
    db = buildDatabase(builtinSources());
    writeCachedBuiltin(db);
  }
  pristine = structuredClone(db);
  return db;
}
