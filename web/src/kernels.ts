/**
 * Where the search kernel builds are (scripts/build-wasm.mjs), as URLs vite copies into the
 * bundle: SIMD or scalar, for a shared (pool) or an ordinary memory.
 */
import type { Backend } from '../../src/search/matcher.js';

const URLS = {
  simdShared: new URL('../../build/search.simd.wasm', import.meta.url),
  simdUnshared: new URL('../../build/search.simd.unshared.wasm', import.meta.url),
  scalarShared: new URL('../../build/search.scalar.wasm', import.meta.url),
  scalarUnshared: new URL('../../build/search.scalar.unshared.wasm', import.meta.url),
};

/** The build for a WASM backend and a kind of memory (undefined for the JavaScript backend). */
export function kernelUrl(backend: Backend, sharedMemory: boolean): URL | undefined {
  if (backend === 'js') return undefined;
  if (backend === 'wasm-simd') return sharedMemory ? URLS.simdShared : URLS.simdUnshared;
  return sharedMemory ? URLS.scalarShared : URLS.scalarUnshared;
}
