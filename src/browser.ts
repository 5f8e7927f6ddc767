/**
 * motionmatch for browsers: the package root as bundlers building for a browser see it (the
 * `browser` condition of package.json's exports; Node takes src/index.ts). The same API without
 * what needs Node: file reading and writing (build databases from sources in memory, e.g.
 * builtinSources() or parseBvh() of fetched text, and decode .mmdb bytes with decodeDatabase), the
 * simulation and its workers, the tuner and quality runs built on it, V8 flags. MatcherPool runs
 * its searches in Web Workers here: the worker script is named below as
 * `new Worker(new URL(literal, import.meta.url))`, which Vite and webpack 5 bundle into the app with
 * its imports; the workers share the database through one shared WebAssembly.Memory, so the page
 * must be cross-origin isolated (COOP/COEP headers) — without that the pool searches on the calling
 * thread with the same results.
 *
 * Nothing reachable from here imports a `node:` module. The WASM builds default to the package's
 * own build/*.wasm, named as `new URL(literal, import.meta.url)` so the bundler copies them into
 * the app (search/wasm/packaged-builds.ts); `Matcher.create(db, { wasm })` takes any other source.
 */
import { setDefaultWasmSource } from './search/wasm/load.js';
import { packagedWasmUrl } from './search/wasm/packaged-builds.js';
import { setDefaultPoolWorker } from './search/pool/pool.js';

setDefaultWasmSource(packagedWasmUrl);
setDefaultPoolWorker(() => new Worker(new URL('./search/pool/worker.js', import.meta.url), { type: 'module' }));

export * from './api.js';
export { MatcherPool, type PoolOptions } from './search/pool/pool.js';
