/**
 * The package's own files, in Node: its root folder (the nearest folder above this module holding
 * package.json) and the search kernel builds in build/.
 *
 * Node's fs, path and url are taken from `process.getBuiltinModule` (Node 20.16+), not imported: the
 * loader falls back on readWasmFile when a caller names no WASM source, so this module sits in the
 * browser entry's module graph too, and an `import 'node:fs'` there (static or dynamic) is what
 * bundlers try to resolve and warn about. Outside Node every function here throws one clear line.
 */
import type { WasmVariant } from './variant.js';
import { wasmFileName } from './variant.js';

/** True when running in Node (not a browser, a web worker or another engine). */
export function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string';
}

/** fs, path and url of the running Node. */
function nodeBuiltins(what: string): { fs: typeof import('node:fs'); path: typeof import('node:path'); url: typeof import('node:url') } {
  if (!isNode()) throw new Error(`motionmatch: ${what} needs Node (this is ${typeof navigator !== 'undefined' ? navigator.userAgent : 'not Node'})`);
  if (typeof process.getBuiltinModule !== 'function') {
    throw new Error(`motionmatch: ${what} needs Node 20.16 or newer (process.getBuiltinModule); this is Node ${process.versions.node}`);
  }
  return { fs: process.getBuiltinModule('node:fs'), path: process.getBuiltinModule('node:path'), url: process.getBuiltinModule('node:url') };
}

/**
 * The package root (the nearest directory above this module holding package.json). Works from the
 * TypeScript sources (src/search/wasm/) and from the compiled output (dist/src/search/wasm/).
 */
export async function nodePackageRoot(): Promise<string> {
  return nodePackageRootSync();
}

/** nodePackageRoot without a promise, for callers that are synchronous (the built-in database cache). */
export function nodePackageRootSync(): string {
  const { fs, path, url } = nodeBuiltins('finding the package folder');
  const here = url.fileURLToPath(import.meta.url);
  let dir = path.dirname(here);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`motionmatch: no package.json above ${here}`);
    dir = up;
  }
}

/** Reads build/<variant>.wasm from the package (Node only). */
export async function readWasmFile(v: WasmVariant): Promise<Uint8Array> {
  const { fs, path } = nodeBuiltins('reading the WASM builds from build/');
  const file = path.join(await nodePackageRoot(), 'build', wasmFileName(v));
  try {
    return await fs.promises.readFile(file);
  } catch (e) {
    throw new Error(`motionmatch: cannot read ${file} (run \`npm run build:wasm\`): ${(e as Error).message}`);
  }
}
