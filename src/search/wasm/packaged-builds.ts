/**
 * The four builds as the package ships them (build/*.wasm at its root), named the way bundlers find
 * assets: `new URL('<literal path>', import.meta.url)`, written out once per build. Vite and webpack 5
 * copy each file into the app's output and rewrite the URL (so do Parcel 2, and Rollup or esbuild
 * with an import.meta-assets plugin); unbundled, the URL points into the installed package.
 *
 * The paths are relative to the compiled module, dist/src/search/wasm/packaged-builds.js, four
 * folders below the package root. Only the browser entry (src/browser.ts) imports this module; Node
 * reads the files from disk (package-files.ts) and the repository's demo passes its own URLs
 * (web/src/kernels.ts).
 */
import type { WasmVariant } from './variant.js';

/** The packaged build of a variant, as a URL. */
export function packagedWasmUrl(v: WasmVariant): URL {
  if (v.simd) {
    return v.shared
      ? new URL('../../../../build/search.simd.wasm', import.meta.url)
      : new URL('../../../../build/search.simd.unshared.wasm', import.meta.url);
  }
  return v.shared
    ? new URL('../../../../build/search.scalar.wasm', import.meta.url)
    : new URL('../../../../build/search.scalar.unshared.wasm', import.meta.url);
}
