/**
 * The built-in database for the commands that run on it when no --db is given (simulate, quality,
 * bench, demo's tag check). Generating the procedural clips and building takes 1–2 s; a process
 * that runs several commands (a server or a test calling the CLI's functions) pays it once: the
 * first call keeps the database as a float32 `.mmdb` image (10 MB), every call decodes a fresh copy
 * of it (40–80 ms), so a command may change its copy (settings files reweight the features in
 * place). A float32 image decodes to exactly the database built, every array and field
 * (test/database/builtin-fixture.test.ts).
 */
import { buildDatabase } from '../database/build.js';
import { builtinSources } from '../database/builtin-sources.js';
import type { Database } from '../database/database.js';
import { decodeDatabase } from '../database/mmdb/decode.js';
import { encodeDatabase } from '../database/mmdb/encode.js';

let image: Uint8Array | null = null;

/** A fresh copy of `buildDatabase(builtinSources())`, built once per process. */
export function builtinDatabase(): Database {
  image ??= encodeDatabase(buildDatabase(builtinSources()));
  return decodeDatabase(image, 'the built-in database');
}
