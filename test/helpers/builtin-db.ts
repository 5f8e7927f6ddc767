/**
 * The built-in database for the test files that use it as a fixture (not those that test building
 * it, nor those that run the packed package's own build): built once per `vitest run` (2 s: the
 * procedural clips, then the build) and kept as a float32 `.mmdb` file in the run's folder
 * (MM_TEST_RUN_DIR, test/helpers/global-setup.ts), which every worker process reads. Each call
 * decodes a fresh copy, so a test may change its own. A float32 file decodes to exactly the
 * database built, every array and field (test/database/builtin-fixture.test.ts proves it).
 * Outside a `vitest run` (no run folder) it builds.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/builtin-sources.js';
import type { Database } from '../../src/database/database.js';
import { decodeDatabase } from '../../src/database/mmdb/decode.js';
import { encodeDatabase } from '../../src/database/mmdb/encode.js';

/** This process's copy of the file's bytes. */
let bytes: Uint8Array | null = null;

function builtinBytes(): Uint8Array {
  if (bytes) return bytes;
  const runDir = process.env.MM_TEST_RUN_DIR;
  const file = runDir ? join(runDir, 'builtin-fixture.mmdb') : null;
  if (file && existsSync(file)) {
    bytes = new Uint8Array(readFileSync(file));
  } else {
    bytes = encodeDatabase(buildDatabase(builtinSources()));
    if (file) {
      // Written whole under another name, then renamed: a worker reading it never sees half a file
      // (two workers that both built write the same bytes).
      const part = `${file}.${process.pid}.part`;
      writeFileSync(part, bytes);
      renameSync(part, file);
    }
  }
  return bytes;
}

/** A fresh copy of `buildDatabase(builtinSources())`. */
export function builtinDatabase(): Database {
  return decodeDatabase(builtinBytes(), 'built-in database (test fixture)');
}
