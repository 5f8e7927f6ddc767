#!/usr/bin/env node
// Builds the search kernels (assembly/search.ts) for every target in asconfig.json:
//   build/search.simd.wasm            f32x4 SIMD, shared memory (threads)
//   build/search.scalar.wasm          scalar, shared memory (threads)
//   build/search.simd.unshared.wasm   f32x4 SIMD, ordinary memory
//   build/search.scalar.unshared.wasm scalar, ordinary memory
// A module declaring shared memory only links against a shared WebAssembly.Memory (and vice versa),
// hence the unshared pair for pages that are not cross-origin isolated.
// Usage: node scripts/build-wasm.mjs [--wat]   (--wat also writes .wat text next to each .wasm)
import asc from 'assemblyscript/asc';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const config = JSON.parse(readFileSync(join(root, 'asconfig.json'), 'utf8'));
const wat = process.argv.includes('--wat');
mkdirSync(join(root, 'build'), { recursive: true });

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
process.exit(failed ? 1 : 0);
