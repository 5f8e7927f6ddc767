/**
 * The built-in database for the commands that run on it when no --db is given (simulate, quality,
 * bench, demo's tag check). Generating the procedural clips and building takes 1–2 s; a process
 * that runs several commands (a server; a test worker, whose files use it as their fixture) pays
 * it once. A command may change the database it gets (settings files reweight the features in
 * place), so the first call keeps a copy as built and every later call gets a copy of that copy
 * (structuredClone: plain objects and typed arrays, 7–12 ms for its 10 MB, equal to the build in
 * every field).
 */
import { buildDatabase } from '../database/build.js';
import { builtinSources } from '../database/builtin-sources.js';
import type { Database } from '../database/database.js';

let pristine: Database | null = null;

/** `buildDatabase(builtinSources())`, built once per process; each call's database is its own. */
export function builtinDatabase(): Database {
  if (pristine) return structuredClone(pristine);
  const db = buildDatabase(builtinSources());
  pristine = structuredClone(db);
  return db;
}
