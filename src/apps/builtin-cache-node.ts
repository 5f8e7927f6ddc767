/**
 * The built-in database kept on disk between processes (builtin-database.ts): a float32 .mmdb in
 * the cache folder ($MOTIONMATCH_CACHE_DIR, else the package's node_modules/.cache/motionmatch,
 * else motionmatch-cache-<uid> in the temporary folder), named by a SHA-256 of the code that
 * builds it: every source file of the running engine (the folder this module's parent is, compiled
 * or not), paths and contents. Any
 * change to any of them, a rebuild of dist/ included, names another file: a stale database is never
 * read. The file is written atomically and checked on read like any database (checksums, ranges);
 * one that fails is built again and replaced. MOTIONMATCH_NO_CACHE=1 turns the cache off.
 * Nothing here prints: the commands' output (--json) stays as it was.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDatabaseBytes } from '../database/mmdb/mmdb-node.js';
import { firstUsableFolder, userTemporaryFolder, writeFileAtomic } from '../util/files-node.js';
import { nodePackageRootSync } from '../search/wasm/package-files.js';

/** The engine's source folder (src/ or dist/src/): the parent of this module's folder. */
const ENGINE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Cache files are named builtin-<where>-<code>.mmdb: <where> a hash of the engine's folder, so that
 * engines in several places (a repository's src/ and dist/, an installed copy) sharing one cache
 * folder each keep their own file and replace only their own older ones; other names in the folder
 * are never touched.
 */
const WHERE = createHash('sha256').update(ENGINE_DIR).digest('hex').slice(0, 8);
const OWN_NAME = new RegExp(`^builtin-${WHERE}-[0-9a-f]{16}\\.mmdb$`);

/** The cache file for the running code, or null with the cache off or no folder to put it in. */
function cacheFile(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.MOTIONMATCH_NO_CACHE) return null;
  const dir = cacheDir(env);
  return dir === null ? null : join(dir, `builtin-${WHERE}-${codeHash()}.mmdb`);
}

/** $MOTIONMATCH_CACHE_DIR, else node_modules/.cache/motionmatch of the package, else the temporary folder; null when none can be made. */
function cacheDir(env: NodeJS.ProcessEnv): string | null {
  const chosen = env.MOTIONMATCH_CACHE_DIR;
  const root = packageRoot();
  const dirs = chosen ? [chosen] : [...(root ? [join(root, 'node_modules', '.cache', 'motionmatch')] : []), userTemporaryFolder('motionmatch-cache')];
  return firstUsableFolder(dirs);
}

/** The package the engine belongs to (the repository, or the installed package), or null without one. */
function packageRoot(): string | null {
  try {
    return nodePackageRootSync();
  } catch {
    return null;
  }
}

let hash: string | null = null;

/** First 16 hex digits of the SHA-256 of the engine's code files (.js, or .ts when run from sources), paths and contents. */
function codeHash(): string {
  if (hash !== null) return hash;
  const h = createHash('sha256');
  const files = readdirSync(ENGINE_DIR, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(js|ts)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath ?? e.path, e.name))
    .sort();
  for (const f of files) h.update(`${relative(ENGINE_DIR, f)}\n`).update(readFileSync(f));
  return (hash = h.digest('hex').slice(0, 16));
}

/**
 * The bytes of the running code's cached built-in database and the file's path, or null (none yet,
 * unreadable, cache off). Read as any database file is (a regular file of bounded size, its header
 * checked); the caller decodes them, and builds again when they turn out damaged.
 */
export function readCachedBuiltinBytes(): { bytes: Uint8Array; file: string } | null {
  const file = cacheFile();
  if (file === null || !existsSync(file)) return null;
  try {
    return { bytes: readDatabaseBytes(file), file };
  } catch {
    return null; // cut short, or not a database file: built again and replaced
  }
}

/** Writes `bytes` (the encoding of the database just built by the running code) as the cache file and removes older ones; a failure to write only costs the next process a build. */
export function writeCachedBuiltin(bytes: Uint8Array): void {
  const file = cacheFile();
  if (file === null) return;
  try {
    writeFileAtomic(file, bytes, 'the built-in database cache');
  } catch {
    return;
  }
  const dir = dirname(file);
  for (const name of readdirSync(dir)) {
    if (OWN_NAME.test(name) && join(dir, name) !== file) {
      try { unlinkSync(join(dir, name)); } catch { /* another process's, or gone */ }
    }
  }
}
