#!/usr/bin/env node
// `npm pack` / `npm publish` run this first: it builds everything the package ships, then checks
// that every shipped output exists and is newer than what it is built from. A registry install
// runs no build (`prepare` only runs in a clone), so the tarball must carry:
//   dist/src/    compiled JavaScript and type declarations (`npm run build:ts` empties dist/ first,
//                so the output of a deleted source cannot ship)
//   build/*.wasm the four search-kernel builds (asc; the targets of asconfig.json)
//   web-dist/    the browser demo, bundled by vite (`motionmatch demo --build-only --rebuild`)
// MOTIONMATCH_PACK_PREBUILT=1 skips the build and only checks (the package test packs the outputs
// that `npm test`'s pretest has just built, instead of building them a second time).
// Messages go to stderr: `npm pack --json` prints its report on stdout.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKED_SCRIPTS, restoreManifest, writePackedManifest } from './packed-manifest.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const prebuilt = process.env.MOTIONMATCH_PACK_PREBUILT === '1';
// A pack that died after this script last ran left the shipped manifest in place: the original first.
restoreManifest(root);

/** Files under `dir` (recursively) whose names end with `suffix`; none when `dir` is absent. */
function filesUnder(dir, suffix) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => join(e.parentPath ?? e.path, e.name)); // Dirent.path before Node 20.12
}

/** Newest modification time (ms) of a file, or of the files under a folder. */
function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return filesUnder(path, '').reduce((newest, f) => Math.max(newest, statSync(f).mtimeMs), st.mtimeMs);
}

/** Runs a command with its output on stderr; stops the pack when it fails. */
function run(what, command, args) {
  process.stderr.write(`prepack: ${what}\n`);
  const r = spawnSync(command, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) {
    process.stderr.write(`prepack: ${what} failed (${r.error ? r.error.message : `exit code ${r.status}`})\n`);
    process.exit(1);
  }
}

/** A package.json script, through the npm that runs this one (npm_execpath) when there is one. */
function npmRun(script) {
  const npm = process.env.npm_execpath;
  return npm && npm.endsWith('.js') ? [process.execPath, [npm, 'run', script]] : ['npm', ['run', script]];
}

/** The kernel builds asconfig.json declares (build/search.*.wasm). */
function wasmOutputs() {
  const config = JSON.parse(readFileSync(join(root, 'asconfig.json'), 'utf8'));
  return Object.values(config.targets).map((t) => join(root, t.outFile));
}

/** Why the compiled JavaScript cannot ship: missing, older than its source, or without a source. */
function distProblems() {
  const problems = [];
  let orphans = false;
  const src = join(root, 'src');
  const out = join(root, 'dist', 'src');
  for (const ts of filesUnder(src, '.ts')) {
    const base = join(out, relative(src, ts)).replace(/\.ts$/, '');
    for (const built of [`${base}.js`, `${base}.d.ts`]) {
      if (!existsSync(built)) problems.push(`${relative(root, built)} is missing`);
      else if (statSync(built).mtimeMs < statSync(ts).mtimeMs) problems.push(`${relative(root, built)} is older than ${relative(root, ts)}`);
    }
  }
  for (const js of filesUnder(out, '.js')) {
    const ts = join(src, relative(out, js)).replace(/\.js$/, '.ts');
    if (!existsSync(ts)) {
      problems.push(`${relative(root, js)} has no source (${relative(root, ts)} is gone)`);
      orphans = true;
    }
  }
  if (problems.length === 0) return [];
  return [...problems, `run \`npm run build:ts\`${orphans ? ' (it empties dist/ first)' : ''}, or pack without MOTIONMATCH_PACK_PREBUILT`];
}

/** Why the kernel builds cannot ship. */
function wasmProblems() {
  const sources = Math.max(newestMtime(join(root, 'assembly')), newestMtime(join(root, 'asconfig.json')));
  const problems = [];
  for (const wasm of wasmOutputs()) {
    if (!existsSync(wasm)) problems.push(`${relative(root, wasm)} is missing`);
    else if (statSync(wasm).mtimeMs < sources) problems.push(`${relative(root, wasm)} is older than assembly/ or asconfig.json`);
  }
  return problems.length ? [...problems, 'run `npm run build:wasm`'] : [];
}

/** Why the demo bundle cannot ship; the inputs are the ones `motionmatch demo` watches. */
function webProblems() {
  const stamp = join(root, 'web-dist', '.motionmatch-build');
  if (!existsSync(join(root, 'web-dist', 'index.html')) || !existsSync(stamp)) {
    return ['web-dist/ has not been built', 'run `npm run build:web`'];
  }
  const builtAt = statSync(stamp).mtimeMs;
  const changed = ['web', 'src', 'build', 'vite.config.ts', 'package.json'].filter((p) => newestMtime(join(root, p)) > builtAt);
  return changed.length ? [`web-dist/ is older than ${changed.join(', ')}`, 'run `npm run build:web`'] : [];
}

if (!prebuilt) {
  run('building the WASM kernels', ...npmRun('build:wasm'));
  run('compiling TypeScript into dist/', ...npmRun('build:ts'));
  run('bundling the browser demo into web-dist/', process.execPath, [join(root, 'bin', 'motionmatch.js'), 'demo', '--build-only', '--rebuild']);
}
const problems = [...distProblems(), ...wasmProblems(), ...webProblems()];
if (problems.length) {
  process.stderr.write(`prepack: the package cannot be packed:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stderr.write(`prepack: dist/src/, ${wasmOutputs().length} WASM builds and web-dist/ are ${prebuilt ? 'up to date (MOTIONMATCH_PACK_PREBUILT=1: not rebuilt)' : 'built'}\n`);
// Last, once nothing can fail any more: the shipped package.json (postpack restores this one).
writePackedManifest(root);
process.stderr.write(`prepack: package.json ships with the scripts ${PACKED_SCRIPTS.join(', ')} only (postpack restores it)\n`);
