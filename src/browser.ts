/**
 * motionmatch for browsers: the package root as bundlers building for a browser see it (the
 * `browser` condition of package.json's exports; Node takes src/index.ts). The same API without
 * what needs Node: file reading and writing (build databases from sources in memory, e.g.
 * builtinSources() or parseBvh() of fetched text, and decode .mmdb bytes with decodeDatabase), the
 * simulation and its workers, the tuner and quality runs built on it, V8 flags, and MatcherPool
 * (it starts Node worker threads, and a browser worker needs the app's bundler to build the
 * worker script: not offered here yet; Matcher and searchBatch run on the calling thread).
 *
 * Nothing reachable from here imports a `node:` module. The WASM builds default to the package's
 * own build/*.wasm, named as `new URL(literal, import.meta.url)` so the bundler copies them into
 * the app (search/wasm/packaged-builds.ts); `Matcher.create(db, { wasm })` takes any other source.
 */
import { setDefaultWasmSource } from './search/wasm/load.js';
import { packagedWasmUrl } from './search/wasm/packaged-builds.js';

setDefaultWasmSource(packagedWasmUrl);

export * from './api.js';
