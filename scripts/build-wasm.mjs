#!/usr/bin/env node
// Builds the search kernels (assembly/search.ts) for every target in asconfig.json:
//   build/search.simd.wasm            f32x4 SIMD, shared memory (threads)
//   build/search.scalar.wasm          scalar, shared memory (threads)
//   build/search.simd.unshared.wasm   f32x4 SIMD, ordinary memory
//   build/search.scalar.unshared.wasm scalar, ordinary memory
// A module declaring shared memory only links against a shared WebAssembly.Memory (and vice versa),
// hence the unshared pair for pages that are not cross-origin isolated.
// The four builds take ~17 s (asc with converge), and `npm ci` (prepare) then `npm test` (pretest)
// asked for them twice in a row: build/.build-wasm-stamp records a hash of everything a build reads
// (assembly/, asconfig.json, this script, the compiler's version) and of the four outputs, and a
// build whose inputs and outputs both match it is skipped.
// Usage: node scripts/build-wasm.mjs [--wat] [--force]   (--wat also writes .wat text next to each
// .wasm; --force builds even when up to date)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const config = JSON.parse(readFileSync(join(root, 'asconfig.json'), 'utf8'));
const wat = process.argv.includes('--wat');
const force = process.argv.includes('--force');
const stampFile = join(root, 'build', '.build-wasm-stamp');
const outputs = Object.values(config.targets).map((t) => join(root, t.outFile));
mkdirSync(join(root, 'build'), { recursive: true });

/** The files a build reads: assembly/ (every file, sorted), asconfig.json and this script. */
function inputFiles() {
  const assembly = join(root, 'assembly');
  const files = readdirSync(assembly, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name))
    .sort();
  return [...files, join(root, 'asconfig.json'), fileURLToPath(import.meta.url)];
}

/** SHA-256 of the inputs (paths and contents), the compiler's version and the options. */
function inputsHash() {
  const h = createHash('sha256');
  const version = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('assemblyscript/package.json'), 'utf8')).version;
  h.update(`asc ${version} wat ${wat}\n`);
  for (const f of inputFiles()) h.update(`${relative(root, f)}\n`).update(readFileSync(f));
  return h.digest('hex');
}

/** SHA-256 of the outputs, or null when one is missing or empty. */
function outputsHash() {
  const h = createHash('sha256');
  for (const f of outputs) {
    if (!existsSync(f) || statSync(f).size === 0) return null;
    h.update(readFileSync(f));
  }
  return h.digest('hex');
}

const inputs = inputsHash();
if (!force && existsSync(stampFile)) {
  const stamp = readFileSync(stampFile, 'utf8').split('\n');
  if (stamp[0] === inputs && stamp[1] === outputsHash()) {
    // Same bytes as a fresh build; dated after their inputs (a checkout may have touched them) so
    // that the pack's check (scripts/prepack.mjs) sees outputs newer than what they are built from.
    const newestInput = Math.max(...inputFiles().map((f) => statSync(f).mtimeMs));
    const now = new Date();
    for (const f of outputs) if (statSync(f).mtimeMs < newestInput) utimesSync(f, now, now);
    console.log(`build-wasm: ${outputs.length} builds up to date (assembly/ and asconfig.json unchanged since they were built; --force builds again)`);
    process.exit(0);
  }
}

// The compiler loads only for a build (half a second).
const { default: asc } = await import('assemblyscript/asc');
let failed = false;
for (const [target, options] of Object.entries(config.targets)) {
  const args = ['--config', 'asconfig.json', '--target', target, '--baseDir', root];
  if (wat) args.push('--textFile', options.outFile.replace(/\.wasm$/, '.wat'));
  const { error, stderr } = await asc.main(args);
  if (error) {
    failed = true;
    console.error(`build-wasm: target ${target} failed: ${error.message}\n${stderr.toString()}`);
  } else {
    console.log(`build-wasm: ${options.outFile}`);
  }
}
const built = failed ? null : outputsHash();
if (built) writeFileSync(stampFile, `${inputs}\n${built}\n`);
process.exit(failed ? 1 : 0);
